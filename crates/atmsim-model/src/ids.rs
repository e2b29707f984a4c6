//! Typed indices into the network's arenas.
//!
//! Every component lives in one `Vec` of the [`crate::network::Network`] and is named by its
//! index wrapped in a newtype, so a port index cannot be passed where a host index is meant.
//! Indices are dense and given out by the wiring in spec order, which also makes them stable
//! ingredients of the event fingerprint.

macro_rules! id {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);

        impl $name {
            /// The index as a `usize`, for indexing the arena.
            #[inline]
            pub const fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id!(
    /// A node of the spec: a switch or a host (`NetworkSpec::nodes`).
    NodeId
);
id!(
    /// An output port: a switch output or a host adapter. Port `p` transmits on link
    /// direction (channel) `p`, so the same index names both.
    PortId
);
id!(
    /// A host (end system), in the order hosts appear among the spec's nodes.
    HostId
);
id!(
    /// A switch, in the order switches appear among the spec's nodes.
    SwitchId
);
id!(
    /// A virtual channel connection, one direction end to end (source adapter to destination).
    VcId
);
id!(
    /// A TCP connection: a data VC, an ACK VC, a sender and a receiver.
    TcpId
);
id!(
    /// A traffic source that is not TCP (CBR, VBR ON-OFF, greedy cells).
    SourceId
);

/// The VC label a cell carries on one link direction (its VCI there). The label is the VC's
/// slot at the port that transmits it: 16 bits, as the VCI of the ATM cell header.
pub type Label = u16;
