//! A port's ABR rate control: the scheme's config is the scenario's table (the model's
//! `RateControlConfig`); its values are checked by the scheme itself.

use atmsim_model::spec::RateControlConfig;

use crate::error::{FieldPath, Problem};

/// A port's ABR rate control, each value in its range (the scheme's own check, reported at
/// the field it names).
pub(super) fn check_rate_control(
    r: &RateControlConfig,
    at: &FieldPath,
) -> Result<RateControlConfig, Problem> {
    r.check().map_err(|e| {
        let path = e.field.split('.').fold(at.clone(), FieldPath::key);
        Problem::new(path, e.message)
    })?;
    Ok(r.clone())
}
