//! The network model of atmsim: everything that moves or holds a cell.
//!
//! A [`spec::NetworkSpec`] (built by `atmsim-scenario` or by hand) is wired into a
//! [`network::Network`], which runs on the `atmsim-engine` event queue and yields a
//! [`stats::Report`].
//!
//! ```text
//! cell.rs aal5.rs service.rs      what travels, and under which contract
//! describe.rs                     the resolved network in numbers (atmsim.describe)
//! port.rs port/{scheduler, policy, policy/*}.rs   buffer accounting, scheduling, admission
//! switch.rs link.rs host.rs vc.rs source.rs        the parts of the network
//! tcp.rs tcp/*                    sans-IO TCP
//! network.rs network/*            wiring and the event handlers
//! stats.rs stats/series.rs        the summary and the time series
//! trace.rs network/trace.rs     pcap-ng packet traces and cell traces
//! bench.rs                        the bare loop `atmsim bench` measures the model against
//! ```

pub mod aal5;
pub mod abr;
pub mod bench;
pub mod cell;
pub mod describe;
pub mod host;
pub mod ids;
pub mod link;
pub mod network;
pub mod plugin;
pub mod port;
pub mod service;
pub mod source;
pub mod spec;
pub mod stats;
pub mod switch;
pub mod tcp;
pub mod topology;
pub mod trace;
pub mod vc;

pub use network::{run, ModelError, Network};
pub use plugin::PluginHost;
pub use stats::{Report, Series, SeriesColumn, Summary};
