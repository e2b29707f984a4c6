//! The network model of atmsim: everything that moves or holds a cell.
//!
//! A [`spec::NetworkSpec`] (built by `atmsim-scenario` or by hand) becomes a
//! [`network::Network`], which runs on the `atmsim-engine` event queue and yields a
//! [`stats::Report`].

pub mod aal5;
pub mod cell;
pub mod network;
pub mod port;
pub mod spec;
pub mod stats;
pub mod tcp;
pub mod topology;

pub use network::{run, ModelError, Network};
pub use stats::{Report, Series, SeriesColumn, Summary};
