//! The compact form's errors: [`CompactError`] (reading, named by source), [`FormError`]
//! (what is wrong with the bytes, and where in the form), [`WriteError`].

use super::MAX_BODY;
use crate::codec::DecodeError;
use crate::meta::MetaError;

/// Why a compact form could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{source_name}: compact form: {}{message}", .offset.map(|o| format!("byte {o} of the inflated body: ")).unwrap_or_default())]
pub struct CompactError {
    pub source_name: String,
    pub offset: Option<usize>,
    pub message: String,
}

/// Why a compact form could not be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct WriteError(pub(super) String);

/// What is wrong with the bytes of a compact form: a check that failed, within the parts of
/// the form it is in (a section, a level, a tag's groups). Levels and groups are read when
/// first asked for, so [`super::Trace::point`] can fail with one too.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FormError {
    // numbers and fields
    #[error("the body ends inside a number")]
    EndsInNumber,
    #[error("a number is longer than 64 bits")]
    NumberTooLong,
    #[error("a length of {len} with {left} bytes left")]
    LengthPastEnd { len: u64, left: usize },
    #[error("the body ends inside a field")]
    EndsInField,
    #[error("a time is out of range")]
    TimeOutOfRange,
    #[error("column kind {0}; expected 0 or 1")]
    ColumnKind(u64),

    // sections (version 3 on)
    #[error("its compressed section (byte {at} of the form) is damaged or cut ({error})")]
    SectionDamaged { at: usize, error: DecodeError },
    #[error("its section (byte {at} of the form) inflates to {got} bytes; the form states {stated}")]
    SectionSize { at: usize, got: usize, stated: usize },
    #[error("its sections inflate to more than {} MiB", MAX_BODY >> 20)]
    SectionsTooLarge,
    #[error("{0} bytes follow the last section")]
    AfterSections(usize),
    /// In the head section.
    #[error("head: {0}")]
    Head(Box<FormError>),
    /// In level `k` of a direction ("tag read", "all").
    #[error("level {k} of {dir}: {error}")]
    Level { k: usize, dir: String, error: Box<FormError> },
    /// In the groups of a direction ("tag read").
    #[error("the groups of {dir}: {error}")]
    Groups { dir: String, error: Box<FormError> },
    /// At a byte of a level's section.
    #[error("byte {at} of its section: {error}")]
    InSection { at: usize, error: Box<FormError> },

    // the header
    #[error("header is not JSON ({0})")]
    HeaderNotJson(String),
    #[error("header has no \"{0}\"")]
    HeaderMissing(&'static str),
    #[error("header \"{key}\" is not {expected}")]
    HeaderField { key: &'static str, expected: &'static str },
    #[error("header \"warnings\" has an entry that is not [line, text]")]
    HeaderWarning,
    #[error("header \"meta\": {0}")]
    HeaderMeta(MetaError),

    // directions and their slots and values
    #[error("a tag is not UTF-8")]
    TagNotUtf8,
    #[error("tag {0:?} is not a valid tag")]
    InvalidTag(String),
    #[error("direction kind {0}; expected 0, 1 or 2")]
    DirectionKind(u64),
    #[error("a direction is listed twice")]
    DirectionTwice,
    #[error("slot {slot} has start {start} and length {length}; expected finite numbers, length >= 0")]
    SlotSpan { slot: usize, start: f64, length: f64 },
    #[error("slot {0} starts before the one before it")]
    SlotOrder(usize),
    #[error("the slots' I/O counts add up to more than 2^63-1")]
    SlotCounts,
    #[error("the run's I/O counts add up to more than 2^63-1")]
    RunCounts,
    #[error("latency values repeat; expected them ascending")]
    ValuesRepeat,
    #[error("a latency value is past 2^64")]
    ValuePast64,
    #[error("{levels} levels for {slots} slots; expected {expected}")]
    LevelCount { levels: u64, slots: usize, expected: usize },
    #[error("{0} bytes follow the last direction")]
    AfterDirections(usize),

    // levels' points
    #[error("level {k} point {point}: a latency index outside the {values} values")]
    IndexOutside { k: usize, point: usize, values: usize },
    #[error("level {k} point {point}: median, levels and max are not in ascending order")]
    PointOrder { k: usize, point: usize },
    #[error("a level without points")]
    LevelWithoutPoints,
    #[error("{0} bytes follow its last point")]
    AfterPoints(usize),

    // whole-run histograms
    #[error("the whole run of tag {tag} (byte {at}): {error}")]
    WholeDecode { tag: String, at: usize, error: DecodeError },
    #[error("the whole run of tag {tag} holds {got} I/Os; its slots hold {slots}")]
    WholeCount { tag: String, got: u64, slots: u64 },
    #[error("\"all\" holds {all} I/Os; its directions hold {dirs}")]
    AllCount { all: u64, dirs: u64 },

    // groups
    #[error("{groups} groups for {slots} slots; expected {expected} in groups of {group}")]
    GroupCount { groups: u64, slots: usize, expected: usize, group: usize },
    #[error("{groups} groups; its slots make {expected}")]
    GroupsInSection { groups: usize, expected: usize },
    #[error("{0} bytes follow the last group")]
    AfterGroups(usize),
    #[error("no groups")]
    NoGroups,
    #[error("group {group} of tag {tag}: {error}")]
    GroupDecode { group: usize, tag: String, error: DecodeError },
    #[error("group {group} of tag {tag} holds {got} I/Os; its slots hold {slots}")]
    GroupCountOfIos { group: usize, tag: String, got: u64, slots: u64 },
    #[error("the groups are decoded")]
    GroupsDecoded,
    #[error("the groups of tag {0} are not loaded")]
    GroupsNotLoaded(String),
}
