//! Available bit rate (ABR): the rate-based flow control of ATM Forum TM 4.0.
//!
//! - [`source`]: the source end system (rules 1-13): pacing at ACR, forward RM cells every
//!   Nrm cells, the rate's response to backward RM cells, the ADTF and CRM/CDF rules, out-of-
//!   rate RM cells, and the finite source queue.
//! - [`access`]: the access line that feeds the source queue cell by cell when the source is
//!   an edge router fed by a host (`abr.access_rate`).
//! - The switch schemes, each a [`RateControlScheme`] in a file of its own: [`erica`] and
//!   [`erica_plus`], explicit rates from a measured load; [`efci`], the binary one; [`fmmra`],
//!   explicit rates from an advertised rate. A port runs one of them as its [`RateControl`].
//! - The destination end system is small enough to live in the network's handlers
//!   (`network/abr.rs`): it keeps the EFCI state of each VC's last data cell and turns forward
//!   RM cells round onto the VC of the opposite direction.
//!
//! Adding a scheme is one new file and one line in the [`rate_controls!`] list below (which
//! declares the module and adds it to [`RateControlConfig`] and [`RateControl`]). The file
//! holds the scheme's config, deserialised directly from the scenario's
//! `rate_control = { kind = ..., ... }` (`deny_unknown_fields`, defaults in the file,
//! quantities as [`atmsim_units`] types), its [`RateControlScheme::check`], its state at one
//! port and the hooks it needs.

pub mod access;
pub mod source;

use crate::cell::{Cell, RmFields};
use crate::plugin::{self, PluginConfig, PluginKind, PluginRateControl};
pub use crate::port::policy::Invalid;
use crate::service::ServiceCategory;
use atmsim_engine::SimTime;
use serde::{Deserialize, Serialize};

/// What a measuring rate control computed at the end of its last interval (for the series).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RateStats {
    /// The load factor: ABR input / ABR capacity (ERICA's z, FMMRA's LF).
    pub load_factor: f64,
    /// Active VCs (ERICA: possibly averaged).
    pub active_vcs: f64,
    /// The fair rate (ERICA's fair share, FMMRA's advertised rate) [cells/s].
    pub fair_rate: f64,
    /// The ABR capacity [cells/s].
    pub capacity: f64,
}

/// One ABR switch scheme: its config, its state at one output port, and what it does with
/// the cells of the ABR VCs the port carries. Every hook but [`RateControlScheme::new`] has a
/// default that does nothing, so a scheme writes only the ones it uses.
pub trait RateControlScheme: Sized {
    /// The scenario's `rate_control = { kind = ..., ... }` table for this scheme.
    type Config;

    /// A complete `rate_control` table for this scheme, as a scenario writes it (quoted when a
    /// scenario's table misses one of its keys).
    const EXAMPLE: &'static str;

    /// Refuses impossible parameter values (the scenario layer reports them with the field).
    fn check(_config: &Self::Config) -> Result<(), Invalid> {
        Ok(())
    }

    /// The (time, ABR cells) after which a measuring scheme's interval ends, whichever comes
    /// first; `None` for a scheme that does not measure (the run's cost estimate reads it).
    fn interval(_config: &Self::Config) -> Option<(SimTime, u32)> {
        None
    }

    /// The scheme's state at a port whose link sends `link_rate` cells/s; a first
    /// measurement interval starts at time 0.
    fn new(config: &Self::Config, link_rate: f64) -> Self;

    /// A VC was added to the port (its label is the number of VCs added before it).
    fn add_vc(&mut self) {}

    /// An ABR cell (data or RM) of VC `vc` enters the port and finds `queue` cells in its ABR
    /// queue. Returns true when it completes a measurement interval (the caller then calls
    /// [`RateControlScheme::end_interval`] at once).
    #[inline]
    fn on_abr_cell(&mut self, _vc: usize, _queue: u32, _cell: &mut Cell) -> bool {
        false
    }

    /// An ABR cell leaves the port with `queue` cells behind it in the ABR queue. Called only
    /// for a scheme whose [`RateControlScheme::ABR_DEPARTURES`] is true.
    #[inline]
    fn on_abr_departure(&mut self, _queue: u32, _cell: &mut Cell) {}

    /// Whether the scheme uses [`RateControlScheme::on_abr_departure`] (a scheme that writes
    /// that hook sets it): the ABR cells leaving a port whose scheme does not are not shown
    /// to it, which spares a call per cell and hop.
    const ABR_DEPARTURES: bool = false;

    /// A CBR or VBR cell left the port (capacity ABR cannot have).
    #[inline]
    fn on_real_time_cell(&mut self) {}

    /// A forward RM cell of VC `vc` passes the port, with `queue` cells in its ABR queue
    /// (before [`RateControlScheme::on_abr_cell`] counts it).
    #[inline]
    fn on_forward_rm(&mut self, _vc: usize, _queue: u32, _fields: &mut RmFields) {}

    /// A backward RM cell of VC `vc` passes the switch, with `queue` cells in this port's ABR
    /// queue: the scheme's feedback. It may only lower the ER (and set CI or NI).
    #[inline]
    fn on_backward_rm(&mut self, _vc: usize, _queue: u32, _fields: &mut RmFields) {}

    /// Ends the measurement interval at `now` with `queue` cells in the ABR queue.
    fn end_interval(&mut self, _now: SimTime, _queue: u32) {}

    /// When the current measurement interval ends at the latest, for a scheme that measures.
    fn deadline(&self) -> Option<SimTime> {
        None
    }

    /// What a measuring scheme computed last, for the series.
    fn stats(&self) -> Option<RateStats> {
        None
    }
}

/// A port without rate control: `rate_control = { kind = "none" }`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoRateControl {}

/// Declares the scheme modules and the two closed enums over them: the config the scenario
/// deserialises (`kind` = the variant's snake_case name, which is also the module's name and
/// the scheme's name in reports), and the per-port state the port calls with one `match` per
/// cell.
macro_rules! rate_controls {
    ($( $(#[$doc:meta])* $variant:ident($module:ident :: $state:ident, $config:ident), )*) => {
        $( pub mod $module; pub use $module::{$state, $config}; )*

        /// A port's ABR rate control, as the scenario writes it.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        pub enum RateControlConfig {
            /// Nothing: RM cells pass unchanged.
            None(NoRateControl),
            $( $(#[$doc])* $variant($config), )*
            /// A plug-in: `{ kind = "python", class = "module:Class", params = { ... } }`
            /// (see [`crate::plugin`]).
            Python(PluginConfig),
        }

        /// A port's ABR rate control, one of the switch schemes. (A port holds it boxed, so
        /// the variants' sizes do not weigh on the port.) It starts a cache line: the tag and
        /// the start of the scheme's state, what each ABR cell reads (a scheme lays its
        /// per-cell fields first), share one.
        #[derive(Debug)]
        #[allow(clippy::large_enum_variant)]
        #[repr(align(64))]
        pub enum RateControl {
            $( $variant($state), )*
            Python(Box<PluginRateControl>),
        }

        impl Default for RateControlConfig {
            fn default() -> Self {
                RateControlConfig::None(NoRateControl {})
            }
        }

        impl RateControlConfig {
            /// Refuses impossible parameter values.
            pub fn check(&self) -> Result<(), Invalid> {
                match self {
                    RateControlConfig::None(_) => Ok(()),
                    $( RateControlConfig::$variant(c) =>
                        <$state as RateControlScheme>::check(c), )*
                    RateControlConfig::Python(c) => plugin::check(PluginKind::RateControl, c),
                }
            }

            /// The `kind` names, in declaration order.
            pub const KINDS: &'static [&'static str] = &["none", $( stringify!($module), )* "python"];

            /// A complete `rate_control` table of the scheme named `kind`, if there is one.
            pub fn example(kind: &str) -> Option<&'static str> {
                match kind {
                    "none" => Some(r#"{ kind = "none" }"#),
                    $( stringify!($module) => Some(<$state as RateControlScheme>::EXAMPLE), )*
                    "python" => Some(PYTHON_EXAMPLE),
                    _ => None,
                }
            }

            /// The `kind` name.
            pub fn kind(&self) -> &'static str {
                match self {
                    RateControlConfig::None(_) => "none",
                    $( RateControlConfig::$variant(_) => stringify!($module), )*
                    RateControlConfig::Python(_) => "python",
                }
            }

            /// See [`RateControlScheme::interval`].
            pub fn interval(&self) -> Option<(SimTime, u32)> {
                match self {
                    RateControlConfig::None(_) => None,
                    $( RateControlConfig::$variant(c) =>
                        <$state as RateControlScheme>::interval(c), )*
                    // Declared by the class, known once it is made.
                    RateControlConfig::Python(_) => None,
                }
            }
        }

        impl RateControl {
            /// The scheme of `config` at a port whose link sends `link_rate` cells/s; `None`
            /// for a port without one.
            pub fn new(config: &RateControlConfig, link_rate: f64) -> Option<Box<RateControl>> {
                match config {
                    RateControlConfig::None(_) => None,
                    $( RateControlConfig::$variant(c) => Some(Box::new(RateControl::$variant(
                        <$state as RateControlScheme>::new(c, link_rate),
                    ))), )*
                    RateControlConfig::Python(c) => Some(Box::new(RateControl::Python(
                        Box::new(PluginRateControl::new(c, link_rate)),
                    ))),
                }
            }

            /// The scheme's name in reports: its `kind`.
            pub fn name(&self) -> &'static str {
                match self {
                    $( RateControl::$variant(_) => stringify!($module), )*
                    RateControl::Python(_) => "python",
                }
            }

            /// See [`RateControlScheme::add_vc`].
            pub fn add_vc(&mut self) {
                match self {
                    $( RateControl::$variant(s) => <$state as RateControlScheme>::add_vc(s), )*
                    RateControl::Python(s) => s.add_vc(),
                }
            }

            /// See [`RateControlScheme::on_abr_cell`].
            #[inline]
            pub fn on_abr_cell(&mut self, vc: usize, queue: u32, cell: &mut Cell) -> bool {
                match self {
                    $( RateControl::$variant(s) => <$state as RateControlScheme>::on_abr_cell(s, vc, queue, cell), )*
                    RateControl::Python(s) => s.on_abr_cell(vc, queue, cell),
                }
            }

            /// See [`RateControlScheme::on_abr_departure`].
            #[inline]
            pub fn on_abr_departure(&mut self, queue: u32, cell: &mut Cell) {
                match self {
                    $( RateControl::$variant(s) => <$state as RateControlScheme>::on_abr_departure(s, queue, cell), )*
                    RateControl::Python(_) => {}
                }
            }

            /// Whether a cell of a VC of `service` leaving the port is shown to the scheme:
            /// CBR and VBR cells always ([`RateControlScheme::on_real_time_cell`]), ABR cells
            /// if the scheme uses [`RateControlScheme::on_abr_departure`].
            #[inline]
            pub fn sees_departure(&self, service: ServiceCategory) -> bool {
                match service {
                    ServiceCategory::Cbr | ServiceCategory::Vbr => true,
                    ServiceCategory::Abr => match self {
                        $( RateControl::$variant(_) => <$state as RateControlScheme>::ABR_DEPARTURES, )*
                        RateControl::Python(_) => false,
                    },
                    _ => false,
                }
            }

            /// See [`RateControlScheme::on_real_time_cell`].
            #[inline]
            pub fn on_real_time_cell(&mut self) {
                match self {
                    $( RateControl::$variant(s) => <$state as RateControlScheme>::on_real_time_cell(s), )*
                    RateControl::Python(s) => s.on_real_time_cell(),
                }
            }

            /// See [`RateControlScheme::on_forward_rm`].
            #[inline]
            pub fn on_forward_rm(&mut self, vc: usize, queue: u32, fields: &mut RmFields) {
                match self {
                    $( RateControl::$variant(s) => <$state as RateControlScheme>::on_forward_rm(s, vc, queue, fields), )*
                    RateControl::Python(s) => s.on_forward_rm(vc, queue, fields),
                }
            }

            /// See [`RateControlScheme::on_backward_rm`].
            #[inline]
            pub fn on_backward_rm(&mut self, vc: usize, queue: u32, fields: &mut RmFields) {
                match self {
                    $( RateControl::$variant(s) => <$state as RateControlScheme>::on_backward_rm(s, vc, queue, fields), )*
                    RateControl::Python(s) => s.on_backward_rm(vc, queue, fields),
                }
            }

            /// See [`RateControlScheme::end_interval`].
            pub fn end_interval(&mut self, now: SimTime, queue: u32) {
                match self {
                    $( RateControl::$variant(s) => <$state as RateControlScheme>::end_interval(s, now, queue), )*
                    RateControl::Python(s) => s.end_interval(now, queue),
                }
            }

            /// See [`RateControlScheme::deadline`].
            pub fn deadline(&self) -> Option<SimTime> {
                match self {
                    $( RateControl::$variant(s) => <$state as RateControlScheme>::deadline(s), )*
                    RateControl::Python(s) => s.deadline(),
                }
            }

            /// See [`RateControlScheme::stats`].
            pub fn stats(&self) -> Option<RateStats> {
                match self {
                    $( RateControl::$variant(s) => <$state as RateControlScheme>::stats(s), )*
                    RateControl::Python(s) => s.stats(),
                }
            }
        }
    };
}

rate_controls! {
    /// ERICA (Jain, Kalyanaraman et al.): explicit rates in backward RM cells.
    Erica(erica::Erica, EricaConfig),
    /// ERICA+: ERICA with a capacity scaled to hold a target queueing delay.
    EricaPlus(erica_plus::EricaPlus, EricaPlusConfig),
    /// EFCI marking of data cells (binary feedback through the destination).
    Efci(efci::Efci, EfciConfig),
    /// FMMRA (Arulambalam, Chen & Ansari): advertised rate and ER_max, ER in both directions.
    Fmmra(fmmra::Fmmra, FmmraConfig),
    Eprca(eprca::Eprca, EprcaConfig),
}

/// A complete `rate_control` table of a plug-in.
const PYTHON_EXAMPLE: &str = r#"{ kind = "python", class = "python_erica:PythonErica", params = { target_utilization = 0.9 } }"#;

/// The check every measuring scheme shares: a share of the link in (0, 1], an interval above
/// 0 s and at least one ABR cell.
pub(crate) fn check_measuring(
    target_utilization: f64,
    interval: atmsim_units::Time,
    interval_cells: u32,
) -> Result<(), Invalid> {
    if !(target_utilization > 0.0 && target_utilization <= 1.0) {
        return Err(Invalid {
            field: "target_utilization",
            message: format!(
                "{target_utilization} is not a share of the link: allowed 0 < \
                 target_utilization <= 1"
            ),
        });
    }
    if interval.is_zero() {
        return Err(Invalid {
            field: "interval",
            message: "an averaging interval of 0 s measures nothing; give e.g. \"1 ms\"".into(),
        });
    }
    if interval_cells == 0 {
        return Err(Invalid {
            field: "interval_cells",
            message: "0: allowed 1 or more ABR cells (default 100); an averaging interval ends \
                      after this many ABR cells or after `interval`, whichever comes first"
                .into(),
        });
    }
    Ok(())
}
