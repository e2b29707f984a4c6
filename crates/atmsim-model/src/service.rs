//! ATM service categories and traffic descriptors (ATM Forum TM 4.0 sections 2 and 3).
//!
//! Every VC belongs to a service category and carries a traffic descriptor. What atmsim does
//! with them:
//! - the category picks the VC's class at a port with a priority scheduler: CBR and VBR
//!   (real-time and bounded-delay traffic) above ABR above UBR and GFR ([`PriorityClass`]);
//! - the source's adapter never sends a VC's cells faster than its PCR;
//! - the other parameters (SCR/MBS, MCR, MFS) are the VC's contract as the scenario states
//!   it, for the policies and rate controls that read them (GFR's buffer policy reads MCR,
//!   an ABR source keeps its rate at or above MCR). atmsim does not police them (no usage
//!   parameter control): a source is trusted to keep its contract.

/// A service category (TM 4.0 section 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ServiceCategory {
    /// Constant bit rate.
    Cbr,
    /// Variable bit rate.
    Vbr,
    /// Available bit rate: rate-controlled by RM cells.
    Abr,
    /// Unspecified bit rate: best effort.
    Ubr,
    /// Guaranteed frame rate: UBR with a minimum rate for whole frames.
    Gfr,
}

impl ServiceCategory {
    pub const ALL: [ServiceCategory; 5] = [
        ServiceCategory::Cbr,
        ServiceCategory::Vbr,
        ServiceCategory::Abr,
        ServiceCategory::Ubr,
        ServiceCategory::Gfr,
    ];

    /// The class a priority scheduler serves this category in.
    pub const fn class(self) -> PriorityClass {
        match self {
            ServiceCategory::Cbr | ServiceCategory::Vbr => PriorityClass::RealTime,
            ServiceCategory::Abr => PriorityClass::Abr,
            ServiceCategory::Ubr | ServiceCategory::Gfr => PriorityClass::BestEffort,
        }
    }

    /// The name used in scenarios and reports.
    pub const fn name(self) -> &'static str {
        match self {
            ServiceCategory::Cbr => "cbr",
            ServiceCategory::Vbr => "vbr",
            ServiceCategory::Abr => "abr",
            ServiceCategory::Ubr => "ubr",
            ServiceCategory::Gfr => "gfr",
        }
    }
}

/// The classes of a strict-priority scheduler, highest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum PriorityClass {
    /// CBR and VBR.
    RealTime = 0,
    /// ABR.
    Abr = 1,
    /// UBR and GFR.
    BestEffort = 2,
}

impl PriorityClass {
    pub const COUNT: usize = 3;
    pub const ALL: [PriorityClass; 3] = [
        PriorityClass::RealTime,
        PriorityClass::Abr,
        PriorityClass::BestEffort,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            PriorityClass::RealTime => "cbr_vbr",
            PriorityClass::Abr => "abr",
            PriorityClass::BestEffort => "ubr_gfr",
        }
    }
}

/// A VC's traffic descriptor (TM 4.0 section 3). Rates in cells per second.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TrafficDescriptor {
    /// Peak cell rate: the source adapter never sends the VC's cells faster.
    pub pcr: Option<f64>,
    /// Sustainable cell rate (VBR).
    pub scr: Option<f64>,
    /// Maximum burst size at PCR [cells] (VBR; GFR).
    pub mbs: Option<u32>,
    /// Minimum cell rate (ABR, GFR).
    pub mcr: Option<f64>,
    /// Maximum frame size [cells] (GFR).
    pub mfs: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_map_to_classes_highest_first() {
        use ServiceCategory::*;
        let class = |s: ServiceCategory| s.class();
        assert!(class(Cbr) < class(Abr) && class(Vbr) < class(Abr));
        assert!(class(Abr) < class(Ubr) && class(Ubr) == class(Gfr));
        let names: Vec<_> = ServiceCategory::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(names, ["cbr", "vbr", "abr", "ubr", "gfr"]);
    }
}
