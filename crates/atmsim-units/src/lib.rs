//! Human-unit quantities in scenario files, parsed into exact integers.
//!
//! Every quantity is a string with a number and a unit, `"2.75 us"`, `"155.52 Mb/s"`,
//! `"64 KiB"`, `"256 cells"` (the space is optional). Numbers are decimal, parsed with integer
//! arithmetic: `"2.75 us"` is exactly 2 750 000 ps, never a float rounded to picoseconds. A
//! value that is not a whole number of the base unit (`"0.5 ps"`, `"1.5 B"`) is refused; the
//! one rounding is the cell time of a link given by its rate (see [`Rate::cell_time`]).
//!
//! A bare number (`mss = 8192`) is refused with a message naming the allowed units: a scenario
//! file should never leave the reader guessing whether 500 means ns or us.
//!
//! Each type here prints back in a form that parses to the same value (`canonical_toml`).

use std::fmt;
use std::str::FromStr;

use atmsim_engine::SimTime;
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Bits in one 53-byte ATM cell.
pub const CELL_BITS: u128 = 53 * 8;

/// Declares what a quantity is (`X_WHAT`, for combined hints) and its error hint
/// (`X_HINT` = "expected " + what).
macro_rules! what {
    ($( $what:ident, $hint:ident = $text:literal; )*) => {
        $( const $what: &str = $text; const $hint: &str = concat!("expected ", $text); )*
    };
}

what! {
    TIME_WHAT, TIME_HINT = r#"a time such as "500 ns" (units: ps, ns, us, µs, ms, s)"#;
    RATE_WHAT, RATE_HINT = r#"a rate such as "155.52 Mb/s" (units: b/s, kb/s, Mb/s, Gb/s, cells/s)"#;
    SIZE_WHAT, SIZE_HINT = r#"a size such as "8192 B" (units: B, KB, KiB, MB, MiB, GB, GiB)"#;
    CELLS_WHAT, CELLS_HINT = r#"a cell count such as "256 cells" (units: cells)"#;
    PACKET_RATE_WHAT, PACKET_RATE_HINT =
        r#"a packet rate such as "10500 packets/s" (units: packets/s)"#;
}

/// A non-negative decimal number `mantissa / 10^scale`, kept exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decimal {
    mantissa: u128,
    scale: u32,
}

/// Most significant digits accepted; keeps every product below below `u128::MAX`.
const MAX_DIGITS: usize = 24;

impl Decimal {
    /// Parses `123`, `2.75`, `.5`, `5.`; refuses signs, exponents and empty strings.
    fn parse(s: &str) -> Result<Decimal, String> {
        if s.starts_with('-') {
            return Err("must not be negative".into());
        }
        let (int, frac) = match s.split_once('.') {
            Some((i, f)) => (i, f),
            None => (s, ""),
        };
        if int.is_empty() && frac.is_empty()
            || !int.bytes().all(|b| b.is_ascii_digit())
            || !frac.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(format!("{s:?} is not a number"));
        }
        let digits = format!("{int}{frac}");
        let significant = digits.trim_start_matches('0');
        if significant.len() > MAX_DIGITS || frac.len() > MAX_DIGITS {
            return Err(format!("{s:?} has too many digits"));
        }
        let mantissa = significant.parse::<u128>().unwrap_or(0);
        Ok(Decimal {
            mantissa,
            scale: frac.len() as u32,
        }
        .normalized())
    }

    fn normalized(mut self) -> Decimal {
        while self.scale > 0 && self.mantissa.is_multiple_of(10) {
            self.mantissa /= 10;
            self.scale -= 1;
        }
        if self.mantissa == 0 {
            self.scale = 0;
        }
        self
    }

    fn is_zero(self) -> bool {
        self.mantissa == 0
    }

    /// `self * factor` if it is a whole number.
    fn times_exact(self, factor: u128) -> Option<u128> {
        let num = self.mantissa.checked_mul(factor)?;
        let den = 10u128.pow(self.scale);
        (num % den == 0).then_some(num / den)
    }

    /// `self / 10^k`, exact.
    fn shifted(self, k: u32) -> Decimal {
        Decimal {
            mantissa: self.mantissa,
            scale: self.scale + k,
        }
        .normalized()
    }

    /// Whether `self >= 10^k`.
    fn at_least_pow10(self, k: u32) -> bool {
        self.mantissa >= 10u128.pow(k + self.scale)
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let den = 10u128.pow(self.scale);
        let (whole, frac) = (self.mantissa / den, self.mantissa % den);
        if self.scale == 0 {
            write!(f, "{whole}")
        } else {
            write!(f, "{whole}.{frac:0width$}", width = self.scale as usize)
        }
    }
}

/// Splits `"2.75 us"` into the number and the unit (which may be empty).
fn split_quantity(s: &str) -> (&str, &str) {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(s.len());
    (s[..end].trim(), s[end..].trim())
}

/// Parses `"<number> <unit>"` where the unit is one of `units` (name, factor): the value times
/// the factor must be a whole number of the base unit.
fn parse_scaled(
    s: &str,
    kind: &str,
    base: &str,
    units: &[(&str, u128)],
    hint: &str,
) -> Result<u128, String> {
    let fail = |problem: String| format!("invalid {kind} {s:?}: {problem}; {hint}");
    let (number, unit) = split_quantity(s);
    if number.is_empty() {
        return Err(fail("no number".into()));
    }
    if unit.is_empty() {
        return Err(fail("no unit".into()));
    }
    let Some(&(_, factor)) = units.iter().find(|(name, _)| *name == unit) else {
        return Err(fail(format!("unknown unit {unit:?}")));
    };
    let value = Decimal::parse(number).map_err(fail)?;
    value
        .times_exact(factor)
        .ok_or_else(|| fail(format!("not a whole number of {base}")))
}

fn bare_number_error<E: de::Error>(hint: &str, found: impl fmt::Display) -> E {
    E::custom(format!("{hint}, found the bare number {found}"))
}

/// Implements `Serialize` (via `Display`) and `Deserialize` (via `FromStr`, refusing
/// non-strings with the type's hint) for a quantity type.
macro_rules! string_serde {
    ($ty:ty, $hint:expr) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($hint)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$ty, E> {
                        v.parse().map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$ty, E> {
                        Err(bare_number_error($hint, v))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$ty, E> {
                        Err(bare_number_error($hint, v))
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$ty, E> {
                        Err(bare_number_error($hint, v))
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

// ---------------------------------------------------------------------------------------------
// Time

/// A duration or instant [ps], written `"500 ns"`, `"2.75 us"`, `"1 s"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(pub SimTime);

impl Time {
    pub const ZERO: Time = Time(SimTime::ZERO);

    pub const fn ps(ps: u64) -> Time {
        Time(SimTime::from_ps(ps))
    }
    pub const fn ns(ns: u64) -> Time {
        Time(SimTime::from_ns(ns))
    }
    pub const fn us(us: u64) -> Time {
        Time(SimTime::from_us(us))
    }
    pub const fn ms(ms: u64) -> Time {
        Time(SimTime::from_ms(ms))
    }
    pub const fn s(s: u64) -> Time {
        Time(SimTime::from_secs(s))
    }
    pub const fn is_zero(self) -> bool {
        self.0.as_ps() == 0
    }
}

const TIME_UNITS: &[(&str, u128)] = &[
    ("ps", 1),
    ("ns", 1_000),
    ("us", 1_000_000),
    ("µs", 1_000_000), // U+00B5 MICRO SIGN
    ("μs", 1_000_000), // U+03BC GREEK SMALL LETTER MU
    ("ms", 1_000_000_000),
    ("s", 1_000_000_000_000),
];

impl FromStr for Time {
    type Err = String;
    fn from_str(s: &str) -> Result<Time, String> {
        let ps = parse_scaled(s, "time", "picoseconds", TIME_UNITS, TIME_HINT)?;
        let ps = u64::try_from(ps)
            .map_err(|_| format!("invalid time {s:?}: longer than 213 days; {TIME_HINT}"))?;
        Ok(Time(SimTime::from_ps(ps)))
    }
}

impl fmt::Display for Time {
    /// The exact engine form, e.g. `2.75 us`, `2.726337 us`, `0 s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

string_serde!(Time, TIME_HINT);

// ---------------------------------------------------------------------------------------------
// Rate

/// A link rate, in bits per second or cells per second, kept exactly as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rate {
    /// Line rate [b/s]; every bit carries cells.
    BitsPerSecond(Decimal),
    /// Cell rate [cells/s].
    CellsPerSecond(Decimal),
}

const RATE_BIT_UNITS: &[(&str, u32)] = &[("Gb/s", 9), ("Mb/s", 6), ("kb/s", 3), ("b/s", 0)];

impl Rate {
    /// Serialisation time of one 53-byte cell [ps]: `424 bits / rate`, or `1 / rate` for a
    /// cell rate, rounded to the nearest picosecond (halves round up). The rounding error is at
    /// most 0.5 ps per cell, 2e-7 of a 155.52 Mb/s cell time (2 726 337.45 ps -> 2 726 337 ps).
    pub fn cell_time(self) -> SimTime {
        self.cell_time_at(1, 1)
    }

    /// The line rate [b/s] of a rate given in bits per second (the nearest `f64` to the
    /// decimal as written); `None` for a cell rate.
    pub fn bits_per_second(self) -> Option<f64> {
        match self {
            Rate::BitsPerSecond(d) => d.to_string().parse().ok(),
            Rate::CellsPerSecond(_) => None,
        }
    }

    /// The cell time when only `num / den` of the rate carries cells (a SONET payload: 26/27),
    /// rounded to the nearest picosecond.
    pub fn cell_time_at(self, num: u128, den: u128) -> SimTime {
        // ps per cell = bits_per_cell * 1e12 / (rate * num / den)
        //             = bits_per_cell * 1e12 * 10^scale * den / (mantissa * num)
        let (bits, d) = match self {
            Rate::BitsPerSecond(d) => (CELL_BITS, d),
            Rate::CellsPerSecond(d) => (1, d),
        };
        let top = bits * 1_000_000_000_000 * 10u128.pow(d.scale) * den;
        let bottom = d.mantissa * num;
        let ps = (2 * top + bottom) / (2 * bottom);
        SimTime::from_ps(u64::try_from(ps).unwrap_or(u64::MAX))
    }
}

impl FromStr for Rate {
    type Err = String;
    fn from_str(s: &str) -> Result<Rate, String> {
        let fail = |problem: String| format!("invalid rate {s:?}: {problem}; {RATE_HINT}");
        let (number, unit) = split_quantity(s);
        if number.is_empty() {
            return Err(fail("no number".into()));
        }
        let value = Decimal::parse(number).map_err(fail)?;
        let rate = if unit == "cells/s" || unit == "cell/s" {
            Rate::CellsPerSecond(value)
        } else if let Some(&(_, exp)) = RATE_BIT_UNITS.iter().find(|(u, _)| *u == unit) {
            // `value * 10^exp` b/s; a decimal keeps fractions of a bit per second exact.
            Rate::BitsPerSecond(
                Decimal {
                    mantissa: value.mantissa * 10u128.pow(exp),
                    scale: value.scale,
                }
                .normalized(),
            )
        } else if unit.is_empty() {
            return Err(fail("no unit".into()));
        } else {
            return Err(fail(format!("unknown unit {unit:?}")));
        };
        if value.is_zero() {
            return Err(fail("must be positive".into()));
        }
        if rate.cell_time().as_ps() == 0 {
            return Err(fail("too fast: a cell would take less than 0.5 ps".into()));
        }
        Ok(rate)
    }
}

impl fmt::Display for Rate {
    /// Bit rates use the largest unit that keeps the number at least 1: `155.52 Mb/s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Rate::CellsPerSecond(d) => write!(f, "{d} cells/s"),
            Rate::BitsPerSecond(d) => {
                let &(unit, exp) = RATE_BIT_UNITS
                    .iter()
                    .find(|(_, exp)| d.at_least_pow10(*exp))
                    .unwrap_or(&("b/s", 0));
                write!(f, "{} {unit}", d.shifted(exp))
            }
        }
    }
}

string_serde!(Rate, RATE_HINT);

// ---------------------------------------------------------------------------------------------
// Size

/// A size [bytes], written `"8192 B"`, `"64 KiB"`, `"1 MB"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Size(pub u64);

const SIZE_UNITS: &[(&str, u128)] = &[
    ("B", 1),
    ("KB", 1_000),
    ("KiB", 1 << 10),
    ("MB", 1_000_000),
    ("MiB", 1 << 20),
    ("GB", 1_000_000_000),
    ("GiB", 1 << 30),
];

impl Size {
    pub const fn bytes(self) -> u64 {
        self.0
    }
}

impl FromStr for Size {
    type Err = String;
    fn from_str(s: &str) -> Result<Size, String> {
        let bytes = parse_scaled(s, "size", "bytes", SIZE_UNITS, SIZE_HINT)?;
        let bytes = u64::try_from(bytes)
            .map_err(|_| format!("invalid size {s:?}: too large; {SIZE_HINT}"))?;
        Ok(Size(bytes))
    }
}

impl fmt::Display for Size {
    /// Whole multiples of the largest unit that divides the size: `64 KiB`, `1 MB`, `8232 B`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0 as u128;
        let largest_first = [6, 5, 4, 3, 2, 1].map(|i| SIZE_UNITS[i]);
        for (unit, factor) in largest_first {
            if b > 0 && b.is_multiple_of(factor) {
                return write!(f, "{} {unit}", b / factor);
            }
        }
        write!(f, "{b} B")
    }
}

string_serde!(Size, SIZE_HINT);

// ---------------------------------------------------------------------------------------------
// Cells

/// A number of cells, written `"256 cells"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Cells(pub u32);

const CELL_UNITS: &[(&str, u128)] = &[("cells", 1), ("cell", 1)];

impl FromStr for Cells {
    type Err = String;
    fn from_str(s: &str) -> Result<Cells, String> {
        let n = parse_scaled(s, "cell count", "cells", CELL_UNITS, CELLS_HINT)?;
        let n = u32::try_from(n)
            .map_err(|_| format!("invalid cell count {s:?}: too large; {CELLS_HINT}"))?;
        Ok(Cells(n))
    }
}

impl fmt::Display for Cells {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} cells", self.0)
    }
}

string_serde!(Cells, CELLS_HINT);

// ---------------------------------------------------------------------------------------------
// Packet rate

/// A packet rate, written `"10500 packets/s"`, kept exactly as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketRate(Decimal);

impl PacketRate {
    /// Service time of one packet [ps], `1 / rate` rounded to the nearest picosecond
    /// (10,500 packets/s -> 95 238 095 ps).
    pub fn service_time(self) -> SimTime {
        let d = self.0;
        let num = 1_000_000_000_000u128 * 10u128.pow(d.scale);
        let ps = (2 * num + d.mantissa) / (2 * d.mantissa);
        SimTime::from_ps(u64::try_from(ps).unwrap_or(u64::MAX))
    }
}

impl FromStr for PacketRate {
    type Err = String;
    fn from_str(s: &str) -> Result<PacketRate, String> {
        let fail =
            |problem: String| format!("invalid packet rate {s:?}: {problem}; {PACKET_RATE_HINT}");
        let (number, unit) = split_quantity(s);
        if number.is_empty() {
            return Err(fail("no number".into()));
        }
        let value = Decimal::parse(number).map_err(fail)?;
        if unit != "packets/s" && unit != "packet/s" {
            return Err(fail(if unit.is_empty() {
                "no unit".into()
            } else {
                format!("unknown unit {unit:?}")
            }));
        }
        if value.is_zero() {
            return Err(fail("must be positive".into()));
        }
        let r = PacketRate(value);
        if r.service_time().as_ps() == 0 {
            return Err(fail(
                "too fast: a packet would take less than 0.5 ps".into(),
            ));
        }
        Ok(r)
    }
}

impl fmt::Display for PacketRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} packets/s", self.0)
    }
}

string_serde!(PacketRate, PACKET_RATE_HINT);

// ---------------------------------------------------------------------------------------------
// A keyword or a quantity

/// A quantity a setting can hold: it parses from and prints to the scenario's text, and says
/// what it is for error messages.
pub trait Quantity: FromStr<Err = String> + fmt::Display + Copy {
    /// What is expected, with an example and the units, after "expected ":
    /// `a time such as "500 ns" (units: ps, ns, us, µs, ms, s)`.
    const WHAT: &'static str;
}

impl Quantity for Time {
    const WHAT: &'static str = TIME_WHAT;
}
impl Quantity for Rate {
    const WHAT: &'static str = RATE_WHAT;
}
impl Quantity for Size {
    const WHAT: &'static str = SIZE_WHAT;
}
impl Quantity for Cells {
    const WHAT: &'static str = CELLS_WHAT;
}
impl Quantity for PacketRate {
    const WHAT: &'static str = PACKET_RATE_WHAT;
}

/// A word a setting accepts in place of its quantity (`"unlimited"`, `"off"`, ...): a
/// zero-sized marker type per word.
pub trait Keyword: Copy + Default + PartialEq + fmt::Debug {
    const WORD: &'static str;
}

macro_rules! keywords {
    ($( $(#[$doc:meta])* $name:ident = $word:literal, )*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
            pub struct $name;
            impl Keyword for $name {
                const WORD: &'static str = $word;
            }
        )*
    };
}

keywords! {
    /// No limit.
    Unlimited = "unlimited",
    /// The feature is not used.
    Off = "off",
    /// TM 4.0's default ICR: the PCR.
    Pcr = "pcr",
    /// Computed from the connection's path.
    Path = "path",
    /// A timer that fires at the computed time.
    Exact = "exact",
    /// The receiver's window.
    MaxWindow = "max_window",
}

/// A setting that is either a keyword (`K`, its default) or a quantity (`T`): `"unlimited"` or
/// `"256 cells"`, `"off"` or `"200 ms"`. The one type behind every such setting; each setting
/// is an alias naming its word and its quantity ([`Buffer`], [`Credits`], [`AbrIcr`], ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeywordOr<K, T> {
    /// The keyword.
    Word(K),
    /// A quantity.
    Value(T),
}

impl<K: Keyword, T> Default for KeywordOr<K, T> {
    fn default() -> Self {
        KeywordOr::Word(K::default())
    }
}

impl<K: Keyword, T: Quantity> KeywordOr<K, T> {
    /// The keyword form.
    pub fn word() -> Self {
        KeywordOr::Word(K::default())
    }

    /// The quantity, `None` for the keyword.
    pub fn value(self) -> Option<T> {
        match self {
            KeywordOr::Word(_) => None,
            KeywordOr::Value(v) => Some(v),
        }
    }

    /// Whether this is the keyword.
    pub fn is_word(self) -> bool {
        matches!(self, KeywordOr::Word(_))
    }

    /// The error hint: both forms.
    pub fn hint() -> String {
        format!("expected {:?} or {}", K::WORD, T::WHAT)
    }
}

impl<K: Keyword> KeywordOr<K, Cells> {
    /// The cell count, `None` for the keyword.
    pub fn cells(self) -> Option<u32> {
        self.value().map(|c| c.0)
    }
}

impl<K: Keyword> KeywordOr<K, PacketRate> {
    /// Service time of one packet [ps]; zero for the keyword (no limit).
    pub fn service_time(self) -> SimTime {
        self.value().map_or(SimTime::ZERO, PacketRate::service_time)
    }
}

impl<K: Keyword, T: Quantity> FromStr for KeywordOr<K, T> {
    type Err = String;
    /// The keyword, or anything else as a `T`; an error names both forms.
    fn from_str(s: &str) -> Result<Self, String> {
        if s.trim() == K::WORD {
            return Ok(Self::word());
        }
        s.parse::<T>().map(KeywordOr::Value).map_err(|e| {
            // Keep the specific problem, replace the quantity's own hint by the combined one.
            let problem = e.split("; expected").next().unwrap_or(&e);
            format!("{problem}; {}", Self::hint())
        })
    }
}

impl<K: Keyword, T: Quantity> fmt::Display for KeywordOr<K, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeywordOr::Word(_) => f.write_str(K::WORD),
            KeywordOr::Value(v) => v.fmt(f),
        }
    }
}

impl<K: Keyword, T: Quantity> Serialize for KeywordOr<K, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de, K: Keyword, T: Quantity> Deserialize<'de> for KeywordOr<K, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<K, T>(std::marker::PhantomData<(K, T)>);
        impl<'de, K: Keyword, T: Quantity> Visitor<'de> for V<K, T> {
            type Value = KeywordOr<K, T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&KeywordOr::<K, T>::hint())
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                v.parse().map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Err(bare_number_error(&KeywordOr::<K, T>::hint(), v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Err(bare_number_error(&KeywordOr::<K, T>::hint(), v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Err(bare_number_error(&KeywordOr::<K, T>::hint(), v))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A per-VC or per-port buffer limit: `"unlimited"` or `"N cells"`.
pub type Buffer = KeywordOr<Unlimited, Cells>;
/// A host's IP output service rate: `"unlimited"` or `"N packets/s"` (Cheon & Panwar's
/// host model: outgoing packets queue in an infinite IP buffer served at this rate).
pub type IpRate = KeywordOr<Unlimited, PacketRate>;
/// AN2 per-VC per-hop credits of a link: `"off"` or `"N cells"`.
pub type Credits = KeywordOr<Off, Cells>;
/// ABR ICR: `"pcr"` (TM 4.0's default: ICR = PCR) or a rate.
pub type AbrIcr = KeywordOr<Pcr, Rate>;
/// ABR FRTT: `"path"` (the round trip of the connection's links and switches) or a time.
pub type AbrFrtt = KeywordOr<Path, Time>;
/// TCP retransmission timer: `"exact"` (fires at the computed timeout) or a tick period
/// such as `"500 ms"` (BSD's slow timer).
pub type Timer = KeywordOr<Exact, Time>;
/// Delayed ACK: `"off"` (ACK every segment) or the maximum wait, such as `"200 ms"`.
pub type DelayedAck = KeywordOr<Off, Time>;
/// The artificial loss of Goyal et al. 1998 (Fig. 3): `"off"` or the congestion window at
/// which the sender loses a segment.
pub type DropAtCwnd = KeywordOr<Off, Size>;
/// The slow-start threshold a connection starts with: `"max_window"` (the receiver window,
/// RFC 5681's "arbitrarily high") or a size.
pub type InitialSsthresh = KeywordOr<MaxWindow, Size>;
/// The access line of an ABR source that is an edge router fed by a host: `"off"` (the
/// host's frames enter the source queue all at once) or the line's rate.
pub type AccessRate = KeywordOr<Off, Rate>;
/// EFCI marking of a port's AAL5 data cells, for ECN: `"off"` or the queue length from
/// which a cell is marked.
pub type EfciThreshold = KeywordOr<Off, Cells>;

/// TCP window scaling (RFC 7323): `"auto"` (the smallest shift that lets the largest window
/// be advertised in the 16-bit field) or a shift count from 0 (no scaling) to 14.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WindowScale {
    #[default]
    Auto,
    Shift(u8),
}

const WINDOW_SCALE_HINT: &str = r#"expected "auto" or a shift count from 0 to 14 (RFC 7323)"#;

impl Serialize for WindowScale {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            WindowScale::Auto => s.serialize_str("auto"),
            WindowScale::Shift(n) => s.serialize_u8(*n),
        }
    }
}

impl<'de> Deserialize<'de> for WindowScale {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = WindowScale;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(WINDOW_SCALE_HINT)
            }
            /// Only the keyword: a shift is a number, never a string (as every count is).
            fn visit_str<E: de::Error>(self, v: &str) -> Result<WindowScale, E> {
                match v.trim() {
                    "auto" => Ok(WindowScale::Auto),
                    other if other.parse::<i64>().is_ok() => Err(E::custom(format!(
                        "{v:?} is a string; write the shift as a number, without quotes \
                         (window_scale = {other}); {WINDOW_SCALE_HINT}"
                    ))),
                    other => Err(E::custom(format!("{other:?}: {WINDOW_SCALE_HINT}"))),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<WindowScale, E> {
                if v < 0 {
                    return Err(E::custom(format!("{v}: {WINDOW_SCALE_HINT}")));
                }
                self.visit_u64(v as u64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<WindowScale, E> {
                if v > 14 {
                    return Err(E::custom(format!(
                        "{v}: RFC 7323 allows a shift of at most 14; {WINDOW_SCALE_HINT}"
                    )));
                }
                Ok(WindowScale::Shift(v as u8))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn time(s: &str) -> u64 {
        s.parse::<Time>().unwrap().0.as_ps()
    }

    #[test]
    fn times_parse_exactly() {
        assert_eq!(time("2.75 us"), 2_750_000);
        assert_eq!(time("2.75us"), 2_750_000);
        assert_eq!(time("500 ns"), 500_000);
        assert_eq!(time("1 s"), 1_000_000_000_000);
        assert_eq!(time("0.1 s"), 100_000_000_000);
        assert_eq!(time("12.5 ms"), 12_500_000_000);
        assert_eq!(time("300 µs"), 300_000_000);
        assert_eq!(time("300 μs"), 300_000_000);
        assert_eq!(time("7 ps"), 7);
        assert_eq!(time("0 s"), 0);
        assert_eq!(time(" .5 ns "), 500);
    }

    #[test]
    fn sub_picosecond_times_are_refused() {
        let e = "2.7263374 us".parse::<Time>().unwrap_err();
        assert!(e.contains("not a whole number of picoseconds"), "{e}");
        assert!("0.5 ps".parse::<Time>().is_err());
    }

    #[test]
    fn time_errors_name_the_units() {
        for bad in [
            "500",
            "500 sec",
            "-1 s",
            "abc",
            "us",
            "1.2.3 s",
            "",
            "30000000 s",
        ] {
            let e = bad.parse::<Time>().unwrap_err();
            assert!(e.contains("(units: ps, ns, us, µs, ms, s)"), "{bad:?}: {e}");
        }
        assert!("-1 s".parse::<Time>().unwrap_err().contains("negative"));
        assert!("500".parse::<Time>().unwrap_err().contains("no unit"));
    }

    #[test]
    fn time_prints_back_exactly() {
        for s in ["2.75 us", "2.726337 us", "1 s", "0 s", "7 ps", "12.5 ms"] {
            let t: Time = s.parse().unwrap();
            assert_eq!(t.to_string(), s);
            assert_eq!(t.to_string().parse::<Time>().unwrap(), t);
        }
    }

    #[test]
    fn rates_give_rounded_cell_times() {
        let ct = |s: &str| s.parse::<Rate>().unwrap().cell_time().as_ps();
        // 424 / 155.52e6 s = 2 726 337.448... ps
        assert_eq!(ct("155.52 Mb/s"), 2_726_337);
        // Fang's 2.75 us cell time is 154.181818... Mb/s.
        assert_eq!(ct("154.18 Mb/s"), 2_750_032);
        assert_eq!(ct("424 Mb/s"), 1_000_000);
        assert_eq!(ct("424000 kb/s"), 1_000_000);
        assert_eq!(ct("0.424 Gb/s"), 1_000_000);
        assert_eq!(ct("366792 cells/s"), 2_726_341);
        assert_eq!(ct("1 cells/s"), 1_000_000_000_000);
        assert_eq!(ct("424 b/s"), 1_000_000_000_000);
        assert_eq!(ct("424000 Gb/s"), 1);
        // 0.5 ps rounds up.
        assert_eq!(ct("848000 Gb/s"), 1);
    }

    #[test]
    fn rate_errors_name_the_units() {
        for bad in [
            "155.52",
            "155.52 Mbps",
            "0 Mb/s",
            "-1 Mb/s",
            "fast",
            "1e9 b/s",
        ] {
            let e = bad.parse::<Rate>().unwrap_err();
            assert!(
                e.contains("(units: b/s, kb/s, Mb/s, Gb/s, cells/s)"),
                "{bad:?}: {e}"
            );
        }
        assert!("1000000 Gb/s"
            .parse::<Rate>()
            .unwrap_err()
            .contains("too fast"));
    }

    #[test]
    fn rates_print_back_exactly() {
        for s in [
            "155.52 Mb/s",
            "1 Gb/s",
            "64 kb/s",
            "1.5 b/s",
            "366792 cells/s",
        ] {
            let r: Rate = s.parse().unwrap();
            assert_eq!(r.to_string(), s);
        }
        assert_eq!(
            "155520 kb/s".parse::<Rate>().unwrap().to_string(),
            "155.52 Mb/s"
        );
        assert_eq!(
            "155520 kb/s".parse::<Rate>().unwrap(),
            "155.52 Mb/s".parse::<Rate>().unwrap()
        );
    }

    #[test]
    fn sizes_parse_and_print() {
        let b = |s: &str| s.parse::<Size>().unwrap().0;
        assert_eq!(b("8192 B"), 8192);
        assert_eq!(b("64 KiB"), 65536);
        assert_eq!(b("64 KB"), 64000);
        assert_eq!(b("1.5 KB"), 1500);
        assert_eq!(b("1 MiB"), 1 << 20);
        assert_eq!(b("1 MB"), 1_000_000);
        assert_eq!(Size(65536).to_string(), "64 KiB");
        assert_eq!(Size(8192).to_string(), "8 KiB");
        assert_eq!(Size(1_000_000).to_string(), "1 MB");
        assert_eq!(Size(500).to_string(), "500 B");
        assert_eq!(Size(0).to_string(), "0 B");
        for n in [1, 500, 1000, 1024, 8232, 65536, 1_000_000, 3 << 30] {
            assert_eq!(Size(n).to_string().parse::<Size>().unwrap(), Size(n));
        }
        for bad in ["8192", "1.5 B", "8 kB", "8 bytes", "-1 B"] {
            let e = bad.parse::<Size>().unwrap_err();
            assert!(
                e.contains("(units: B, KB, KiB, MB, MiB, GB, GiB)"),
                "{bad:?}: {e}"
            );
        }
    }

    #[test]
    fn cells_and_keywords() {
        assert_eq!("256 cells".parse::<Cells>().unwrap(), Cells(256));
        assert_eq!("1 cell".parse::<Cells>().unwrap(), Cells(1));
        assert_eq!(
            "unlimited".parse::<Buffer>().unwrap(),
            Buffer::Word(Unlimited)
        );
        assert_eq!(
            "512 cells".parse::<Buffer>().unwrap(),
            Buffer::Value(Cells(512))
        );
        assert_eq!("512 cells".parse::<Buffer>().unwrap().cells(), Some(512));
        assert_eq!(Buffer::default().cells(), None);
        assert_eq!("off".parse::<Credits>().unwrap(), Credits::Word(Off));
        assert_eq!(
            "5 cells".parse::<Credits>().unwrap(),
            Credits::Value(Cells(5))
        );
        assert_eq!("exact".parse::<Timer>().unwrap(), Timer::default());
        assert_eq!(
            "500 ms".parse::<Timer>().unwrap(),
            Timer::Value(Time::ms(500))
        );
        assert_eq!("off".parse::<DelayedAck>().unwrap(), DelayedAck::word());
        assert_eq!("pcr".parse::<AbrIcr>().unwrap(), AbrIcr::default());
        assert_eq!("path".parse::<AbrFrtt>().unwrap().to_string(), "path");
        assert_eq!(
            "max_window".parse::<InitialSsthresh>().unwrap(),
            InitialSsthresh::word()
        );
        assert_eq!(
            "32 KiB".parse::<InitialSsthresh>().unwrap().value(),
            Some(Size(32768))
        );
        assert_eq!(
            "125000 B".parse::<DropAtCwnd>().unwrap().to_string(),
            "125 KB"
        );
        for (bad, units) in [
            ("256", "(units: cells)"),
            ("infinite", "(units: cells)"),
            ("2.5 cells", "(units: cells)"),
        ] {
            assert!(bad.parse::<Cells>().unwrap_err().contains(units));
            let e = bad.parse::<Buffer>().unwrap_err();
            assert!(e.contains(units) && e.contains("\"unlimited\""), "{e}");
            let e = bad.parse::<Credits>().unwrap_err();
            assert!(e.contains(units) && e.contains("\"off\""), "{e}");
        }
        let e = "slow".parse::<Timer>().unwrap_err();
        assert!(e.contains("\"exact\"") && e.contains("(units: ps, ns, us, µs, ms, s)"));
        let e = "200".parse::<DelayedAck>().unwrap_err();
        assert!(e.contains("\"off\"") && e.contains("(units: ps, ns, us, µs, ms, s)"));
        // Every setting's hint names its word and its quantity, from one generic type.
        assert_eq!(
            Credits::hint(),
            r#"expected "off" or a cell count such as "256 cells" (units: cells)"#
        );
        assert_eq!(
            AbrIcr::hint(),
            r#"expected "pcr" or a rate such as "155.52 Mb/s" (units: b/s, kb/s, Mb/s, Gb/s, cells/s)"#
        );
    }

    #[test]
    fn keyword_or_quantity_serde_round_trips_and_refuses_bare_numbers() {
        #[derive(Debug, PartialEq, Serialize, Deserialize)]
        struct T {
            b: Buffer,
            d: DelayedAck,
        }
        let t: T = toml::from_str(
            r#"b = "unlimited"
d = "200 ms""#,
        )
        .unwrap();
        assert_eq!(t.b, Buffer::word());
        assert_eq!(t.d, DelayedAck::Value(Time::ms(200)));
        let back = toml::to_string(&t).unwrap();
        assert_eq!(toml::from_str::<T>(&back).unwrap(), t);
        let e = toml::from_str::<T>("b = 5\nd = \"off\"")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("bare number 5") && e.contains("\"unlimited\""),
            "{e}"
        );
    }

    proptest::proptest! {
        #[test]
        fn any_time_prints_and_parses_back(ps in 0u64..u64::MAX) {
            let t = Time::ps(ps);
            proptest::prop_assert_eq!(t.to_string().parse::<Time>().unwrap(), t);
        }

        #[test]
        fn any_size_prints_and_parses_back(b in 0u64..u64::MAX) {
            proptest::prop_assert_eq!(Size(b).to_string().parse::<Size>().unwrap(), Size(b));
        }

        #[test]
        fn cell_time_is_the_rounded_quotient(kbps in 1u64..1_000_000_000) {
            let r: Rate = format!("{kbps} kb/s").parse().unwrap();
            let exact = 424e9 / kbps as f64;
            let got = r.cell_time().as_ps() as f64;
            proptest::prop_assert!((got - exact).abs() <= 0.5 + exact * 1e-15);
            proptest::prop_assert_eq!(r.to_string().parse::<Rate>().unwrap(), r);
        }
    }

    #[test]
    fn bare_numbers_are_refused_with_the_units() {
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct T {
            t: Time,
        }
        let e = toml::from_str::<T>("t = 500").unwrap_err();
        assert!(e.message().contains("bare number 500"), "{e}");
        assert!(e.message().contains(TIME_HINT), "{e}");
    }

    #[test]
    fn ip_rate_is_exact_and_refuses_bad_units() {
        let r: IpRate = "10500 packets/s".parse().unwrap();
        assert_eq!(r.service_time(), SimTime::from_ps(95_238_095));
        assert_eq!(r.to_string(), "10500 packets/s");
        assert_eq!(
            "unlimited".parse::<IpRate>().unwrap().service_time(),
            SimTime::ZERO
        );
        let e = "10500".parse::<IpRate>().unwrap_err();
        assert!(e.contains("packets/s"), "{e}");
        assert!("0 packets/s".parse::<IpRate>().is_err());
        assert!("4000 Mb/s".parse::<IpRate>().is_err());
    }
}
