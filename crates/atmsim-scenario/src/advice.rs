//! Warnings: settings the scenario layer accepts (they are valid) but that are known to give
//! a run its user probably did not mean. Each names the field and says why; `atmsim validate`
//! and `atmsim run` print them, the Python API issues them as `atmsim.ScenarioWarning`.

use crate::error::{FieldPath, ScenarioError};
use crate::schema::Scenario;
use atmsim_model::spec::{NetworkSpec, SourceSpec};

/// The warnings of a scenario that loaded as `spec` from `source`.
pub fn warnings(scenario: &Scenario, spec: &NetworkSpec, source: &str) -> Vec<ScenarioError> {
    let mut out = Vec::new();
    small_nrm(scenario, spec, source, &mut out);
    out
}

/// TCP over ABR at Nrm = 2: TM 4.0's rule 3 sends a forward RM cell every second in-rate cell
/// and gives the other slot to a waiting backward RM cell before data; a TCP connection's two
/// ABR VCs each turn the other's forward RM cells round, so one waits at every slot and no
/// data cell goes once both VCs' RM cells circulate (docs/scenarios.md, "Small Nrm starves TCP over
/// ABR"). One warning per field that sets it: the `[abr]` default, or a connection's own.
fn small_nrm(scenario: &Scenario, spec: &NetworkSpec, source: &str, out: &mut Vec<ScenarioError>) {
    let mut from_default = Vec::new();
    for (i, c) in spec.connections.iter().enumerate() {
        let tcp = matches!(c.source, SourceSpec::Tcp { .. });
        let Some(abr) = c.abr.as_ref().filter(|_| tcp) else {
            continue;
        };
        if abr.params.nrm != 2 {
            continue;
        }
        if scenario.connection[i].abr.sets("nrm") {
            out.push(warning(
                source,
                FieldPath::root()
                    .key("connection")
                    .index(i)
                    .key("abr")
                    .key("nrm"),
                &format!("connection {}", c.name),
            ));
        } else {
            from_default.push(c.name.as_str());
        }
    }
    if !from_default.is_empty() {
        let who = match from_default.as_slice() {
            [one] => format!("connection {one}"),
            [first, ..] => format!(
                "{} TCP connections over ABR ({first}, ...)",
                from_default.len()
            ),
            [] => unreachable!(),
        };
        out.push(warning(
            source,
            FieldPath::root().key("abr").key("nrm"),
            &who,
        ));
    }
}

fn warning(source: &str, field: FieldPath, who: &str) -> ScenarioError {
    ScenarioError {
        file: source.to_string(),
        line: None,
        field: field.to_string(),
        message: format!(
            "2 starves {who}: at Nrm = 2 TM 4.0's rule 3 gives every slot between forward RM \
             cells to the backward RM cells a TCP connection's two ABR VCs turn round for each \
             other, so its TCP stalls once they circulate (docs/scenarios.md, \"Small Nrm \
             starves TCP over ABR\"); Nrm = 4 leaves data half the cells, 32 (the default) 30 \
             in 32"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loaded(extra: &str, conn_abr: &str) -> Vec<String> {
        let text = format!(
            "name = \"w\"\n{extra}\n[[switch]]\nname = \"A\"\n\
             [[link]]\nbetween = [\"h1\", \"A\"]\nrate = \"155.52 Mb/s\"\n\
             [[link]]\nbetween = [\"A\", \"h2\"]\nrate = \"155.52 Mb/s\"\n\
             [[connection]]\nname = \"s1\"\nfrom = \"h1\"\nto = \"h2\"\nvia = [\"A\"]\n\
             service = \"abr\"\n{conn_abr}\n"
        );
        let (s, spec) = crate::load(&text, "w.toml", &[], None).expect("valid");
        warnings(&s, &spec, "w.toml")
            .iter()
            .map(|w| w.to_string())
            .collect()
    }

    #[test]
    fn tcp_over_abr_at_nrm_2_is_warned_about_where_it_is_set() {
        let w = loaded("[abr]\nnrm = 2\nmrm = 1", "");
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("w.toml: abr.nrm: 2 starves connection s1"),
            "{w:?}"
        );
        let w = loaded("", "abr = { nrm = 2, mrm = 1 }");
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("w.toml: connection[0].abr.nrm: 2 starves"),
            "{w:?}"
        );
    }

    #[test]
    fn other_nrm_values_and_abr_cell_sources_are_not_warned_about() {
        assert!(loaded("[abr]\nnrm = 4", "").is_empty());
        assert!(loaded("", "").is_empty());
        assert!(loaded("[abr]\nnrm = 2\nmrm = 1", "source = \"greedy\"").is_empty());
    }
}
