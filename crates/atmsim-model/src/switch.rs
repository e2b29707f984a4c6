//! A switch: output ports and a VC table.
//!
//! An output-buffered switch (each output port a [`crate::port::Port`]). A cell arriving on
//! a link carries that link's label for its VC; the switch's VC table maps (input link,
//! label) to (output port, outgoing label), the cell takes the new label and is offered to
//! the output port after the switching delay. Several entries may point at one outgoing
//! label: that is VC merging. Each entry also knows the port by which the VC's other
//! direction leaves the switch (where an ABR switch writes its feedback for this VC into
//! backward RM cells).
//!
//! A switch that merges VCs ([`RouteKind::Merge`]) holds each arriving frame until its EOM
//! and then offers it whole, so frames of different VCs never interleave under the merged
//! label; a switch where a merged VC ends ([`RouteKind::Split`]) routes each cell by the
//! end-to-end VC it carries, from the switch's split table.

use crate::ids::{Label, NodeId, PortId, VcId};
use crate::spec::SwitchSpec;
use atmsim_engine::SimTime;

/// Where the switch sends a VC's cells that arrive under one label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    pub port: PortId,
    pub label: Label,
    /// The port the VC's reverse direction leaves this switch by, if the VC has one.
    pub backward: Option<PortId>,
    /// The reverse direction's label at that port (where its rate control keeps the VC's
    /// state).
    pub backward_label: Label,
    /// The output port runs an ABR rate control and the VC is an ABR VC there (so the switch
    /// shows the rate control the VC's cells).
    pub rate_control: bool,
    pub kind: RouteKind,
}

/// How a switch forwards the cells of one table entry (one byte: it fits in [`Route`]'s
/// padding, so the common route stays 20 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum RouteKind {
    /// To `port` under `label`, cell by cell.
    #[default]
    Plain,
    /// Into a merged VC (`port`, `label`): each cell waits in the network's merge buffer of
    /// its VC ([`Switch::merge_buffer`]) until its frame's EOM arrives, then the whole frame
    /// is offered.
    Merge,
    /// Out of a merged VC: where the cell goes depends on its end-to-end VC
    /// ([`Switch::split_route`]).
    Split,
}

/// The (input link, label) -> route table of one switch, flat: the entries of one input link
/// are contiguous, starting at a base offset the link's channel records.
#[derive(Debug, Clone, Default)]
pub struct VcTable {
    routes: Vec<Route>,
    /// (input port upstream, base) for each input link, in order.
    inputs: Vec<(PortId, u32)>,
}

impl VcTable {
    /// Builds a table from `(upstream port, label, route)` entries; every label of an input
    /// link from 0 to its largest must have an entry. Returns the table and, per input, the
    /// upstream port and its base offset.
    pub fn build(mut entries: Vec<(PortId, Label, Route)>) -> VcTable {
        entries.sort_by_key(|(p, l, _)| (*p, *l));
        let mut t = VcTable::default();
        for (up, label, route) in entries {
            if t.inputs.last().is_none_or(|(p, _)| *p != up) {
                t.inputs.push((up, t.routes.len() as u32));
            }
            let base = t.inputs.last().unwrap().1;
            assert_eq!(
                t.routes.len() as u32,
                base + label as u32,
                "labels of an input link are dense"
            );
            t.routes.push(route);
        }
        t
    }

    /// The base offset of the entries of the input link from `upstream` (`inputs` is sorted
    /// by upstream port: a binary search, for switches with thousands of input links).
    pub fn base_of(&self, upstream: PortId) -> Option<u32> {
        self.inputs
            .binary_search_by_key(&upstream, |&(p, _)| p)
            .ok()
            .map(|i| self.inputs[i].1)
    }

    /// The route of `label` on the input link whose entries start at `base`.
    #[inline]
    pub fn route(&self, base: u32, label: Label) -> &Route {
        &self.routes[(base + label as u32) as usize]
    }

    /// Every entry: (upstream port, label, route).
    pub fn entries(&self) -> impl Iterator<Item = (PortId, Label, &Route)> {
        self.inputs
            .iter()
            .enumerate()
            .flat_map(move |(i, &(up, base))| {
                let end = self
                    .inputs
                    .get(i + 1)
                    .map_or(self.routes.len() as u32, |n| n.1);
                (base..end).map(move |k| (up, (k - base) as Label, &self.routes[k as usize]))
            })
    }

    /// The port by which the other direction of the VC arriving as (`upstream`, `label`)
    /// leaves this switch.
    pub fn backward_port(&self, upstream: PortId, label: Label) -> Option<PortId> {
        self.route(self.base_of(upstream)?, label).backward
    }
}

#[derive(Debug)]
pub struct Switch {
    pub name: String,
    pub node: NodeId,
    /// From a cell's arrival to its availability at the output port [ps].
    pub switching_delay: SimTime,
    /// The switch's output ports.
    pub ports: Vec<PortId>,
    pub table: VcTable,
    /// Where the cells of each VC leaving a merged VC here go, sorted by VC.
    pub split: Vec<(VcId, Route)>,
    /// The merge buffer of each (input port upstream, label) that joins a merged VC here,
    /// sorted.
    pub merge_in: Vec<((PortId, Label), u32)>,
}

impl Switch {
    /// Switch `name` at node `node`, from its spec; its ports and tables are filled in as
    /// the links and VCs are wired.
    pub fn new(name: String, node: NodeId, spec: &SwitchSpec) -> Self {
        Switch {
            name,
            node,
            switching_delay: spec.switching_delay,
            ports: Vec::new(),
            table: VcTable::default(),
            split: Vec::new(),
            merge_in: Vec::new(),
        }
    }

    /// The merge buffer of the VC arriving from `upstream` under `label`.
    pub fn merge_buffer(&self, upstream: PortId, label: Label) -> Option<u32> {
        self.merge_in
            .binary_search_by_key(&(upstream, label), |(k, _)| *k)
            .ok()
            .map(|i| self.merge_in[i].1)
    }

    /// The route of a cell of end-to-end VC `vc` arriving on a merged VC that ends here.
    pub fn split_route(&self, vc: VcId) -> Option<Route> {
        self.split
            .binary_search_by_key(&vc, |(v, _)| *v)
            .ok()
            .map(|i| self.split[i].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_by_input_and_label_and_merges() {
        let r = |p, l, b: Option<u32>| Route {
            port: PortId(p),
            label: l,
            backward: b.map(PortId),
            backward_label: 0,
            rate_control: false,
            kind: RouteKind::Plain,
        };
        // Two inputs (from ports 7 and 3); labels 0 and 1 of input 7 merge into port 9's
        // label 4.
        let t = VcTable::build(vec![
            (PortId(7), 1, r(9, 4, None)),
            (PortId(3), 0, r(8, 0, Some(2))),
            (PortId(7), 0, r(9, 4, None)),
        ]);
        let b7 = t.base_of(PortId(7)).unwrap();
        let b3 = t.base_of(PortId(3)).unwrap();
        assert_eq!(t.route(b7, 0), t.route(b7, 1), "merged");
        assert_eq!(t.route(b3, 0).port, PortId(8));
        assert_eq!(t.backward_port(PortId(3), 0), Some(PortId(2)));
        assert_eq!(t.base_of(PortId(5)), None);
        assert_eq!(t.entries().count(), 3);
    }

    /// With many input links (a switch with a host per connection), each input's entries
    /// are found at the base its search gives: every (input, label) routes to its own entry.
    #[test]
    fn many_inputs_each_find_their_entries() {
        let r = |p: u32, l: Label| Route {
            port: PortId(p),
            label: l,
            backward: None,
            backward_label: 0,
            rate_control: false,
            kind: RouteKind::Plain,
        };
        // Inputs in a scrambled order, every third port, one to three labels each.
        let ups: Vec<u32> = (0..1000u32).map(|i| (i * 7919) % 1000 * 3).collect();
        let entries: Vec<_> = ups
            .iter()
            .flat_map(|&u| (0..(u / 3 % 3) as Label + 1).map(move |l| (PortId(u), l, r(u + 1, l))))
            .collect();
        let t = VcTable::build(entries.clone());
        for (up, l, route) in entries {
            let base = t.base_of(up).expect("an input link");
            assert_eq!(*t.route(base, l), route);
        }
        for missing in [1, 2, 3001, u32::MAX] {
            assert_eq!(t.base_of(PortId(missing)), None);
        }
    }
}
