//! What a tag names: `SCOPE/.../DIRECTION[.MEASURE]` (DESIGN.md, "Scoped tags").
//!
//! One naming rule keeps apart everything a run holds more than one of: scopes, outermost
//! first (host, then target, then job), separated by `/`, then the direction, then an optional
//! auxiliary measure after a dot:
//!
//! | tag | scope | direction | measure |
//! |---|---|---|---|
//! | `read` | | `read` | |
//! | `read.svc` | | `read` | `svc` |
//! | `host07/read` | `host07` | `read` | |
//! | `host07/nvme1n1/probe/read.svc` | `host07/nvme1n1/probe` | `read` | `svc` |
//! | `read@node1` (archives of `nines merge` before scoped tags) | `node1` | `read` | |
//!
//! Only an unscoped tag without a measure is a direction of the whole run ([`is_direction`]):
//! `all` merges those, and a scoped tag holds one scope's share of its unscoped direction,
//! so nothing is counted twice. Scope names are restricted to `[A-Za-z0-9_.:-]`
//! ([`scope_name`] makes one of any label); a reader that ignores scopes still gets the
//! whole run right from the unscoped tags.
//!
//! ```
//! use nines_core::tag::{self, Tag};
//!
//! let t = Tag::parse("host07/nvme1n1/read.svc");
//! assert_eq!((t.scope, t.direction, t.measure), (Some("host07/nvme1n1"), "read", Some("svc")));
//! assert_eq!(t.scopes().collect::<Vec<_>>(), ["host07", "nvme1n1"]);
//! assert_eq!(tag::scoped("host07", "read"), "host07/read");
//! assert!(tag::is_direction(Some("read")) && !tag::is_direction(Some("host07/read")));
//! ```

/// Separates scopes from each other and from the direction: `host07/nvme1n1/read`.
pub const SCOPE_SEP: char = '/';

/// Separates a direction from an auxiliary measure: `read.svc`.
pub const MEASURE_SEP: char = '.';

/// The separator `nines merge` wrote before scoped tags (`read@node1`); still read, as the
/// scope `node1`.
pub const LEGACY_PART: char = '@';

/// A tag taken apart. Every part borrows from the tag; nothing is allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag<'a> {
    /// The scope path (`host07/nvme1n1`), outermost first; `None` for a tag of the whole run.
    pub scope: Option<&'a str>,
    /// The direction (`read`, `write`, `trim`, ... or a foreign log's own name).
    pub direction: &'a str,
    /// The auxiliary measure after the first dot of the last component (`svc`, `slat`,
    /// `log`); `None` for the direction itself.
    pub measure: Option<&'a str>,
}

impl<'a> Tag<'a> {
    /// Take a tag apart. Every string parses: a tag without `/` is unscoped, a last component
    /// without `.` has no measure. A legacy `DIR[.MEASURE]@LABEL` has the scope `LABEL`.
    pub fn parse(tag: &'a str) -> Tag<'a> {
        let (scope, last) = match tag.rsplit_once(SCOPE_SEP) {
            Some((s, l)) => (Some(s), l),
            None => match tag.split_once(LEGACY_PART) {
                Some((l, part)) => (Some(part), l),
                None => (None, tag),
            },
        };
        let (direction, measure) = match last.split_once(MEASURE_SEP) {
            Some((d, m)) => (d, Some(m)),
            None => (last, None),
        };
        Tag { scope, direction, measure }
    }

    /// The scope names, outermost first (none for an unscoped tag).
    pub fn scopes(&self) -> impl Iterator<Item = &'a str> {
        self.scope.into_iter().flat_map(|s| s.split(SCOPE_SEP))
    }

    /// The direction with its measure, without the scope (`read.svc` of `h/read.svc`): the
    /// unscoped tag this one holds a share of.
    pub fn unscoped(&self) -> String {
        match self.measure {
            Some(m) => format!("{}{MEASURE_SEP}{m}", self.direction),
            None => self.direction.to_string(),
        }
    }
}

/// Is `tag` a direction of the whole run, merged into `all`: unscoped and without a measure?
/// `None` (the windows of a log without tags) is. Scoped tags (`host07/read`, legacy
/// `read@node1`) and auxiliary measures (`read.svc`, `read.slat`) are not.
pub fn is_direction(tag: Option<&str>) -> bool {
    tag.is_none_or(|t| !t.contains([SCOPE_SEP, MEASURE_SEP, LEGACY_PART]))
}

/// `tag` inside the scope `scope` (a scope path, or one name): `scoped("host07", "read")` is
/// `host07/read`. Each scope name should come from [`scope_name`].
pub fn scoped(scope: &str, tag: &str) -> String {
    format!("{scope}{SCOPE_SEP}{tag}")
}

/// Can `name` be one scope: non-empty, only `[A-Za-z0-9_.:-]`?
pub fn is_scope_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'))
}

/// A scope name made of any label (a host name, a device's basename, a job's name): every
/// character outside `[A-Za-z0-9_.:-]` becomes `_`; an empty label becomes `_`.
pub fn scope_name(label: &str) -> String {
    let out: String =
        label.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-') { c } else { '_' }).collect();
    if out.is_empty() {
        "_".into()
    } else {
        out
    }
}

/// The tag name used for windows without a tag.
pub const UNTAGGED: &str = "untagged";
/// The name of the row that merges every direction.
pub const ALL: &str = "all";

/// Display name of a tag: its name, or [`UNTAGGED`] for a window without one.
pub fn tag_name(tag: Option<&str>) -> &str {
    tag.unwrap_or(UNTAGGED)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(t: &str) -> (Option<&str>, &str, Option<&str>) {
        let p = Tag::parse(t);
        (p.scope, p.direction, p.measure)
    }

    #[test]
    fn tags_parse_into_scope_direction_and_measure() {
        assert_eq!(parts("read"), (None, "read", None));
        assert_eq!(parts("read.svc"), (None, "read", Some("svc")));
        assert_eq!(parts("all.log.2"), (None, "all", Some("log.2")));
        assert_eq!(parts("host07/read"), (Some("host07"), "read", None));
        assert_eq!(parts("host07/nvme1n1/probe/read.svc"), (Some("host07/nvme1n1/probe"), "read", Some("svc")));
        // scope names may hold dots (fully qualified host names); the measure is the last part's
        assert_eq!(parts("h1.example.org/write"), (Some("h1.example.org"), "write", None));
        // archives merged before scoped tags
        assert_eq!(parts("read@node1"), (Some("node1"), "read", None));
        assert_eq!(parts("read.svc@node1"), (Some("node1"), "read", Some("svc")));
        let t = Tag::parse("a/b/c/read.svc");
        assert_eq!(t.scopes().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(t.unscoped(), "read.svc");
        assert_eq!(Tag::parse("read").scopes().count(), 0);
    }

    #[test]
    fn only_unscoped_plain_tags_are_directions() {
        for t in ["read", "write", "trim", "sync", "foo"] {
            assert!(is_direction(Some(t)), "{t}");
        }
        assert!(is_direction(None));
        for t in ["read.svc", "all.log", "host07/read", "h/n/j/write", "read@node1"] {
            assert!(!is_direction(Some(t)), "{t}");
        }
    }

    #[test]
    fn scope_names_are_kept_to_their_characters() {
        assert!(is_scope_name("host07") && is_scope_name("h1.example.org") && is_scope_name("nvme1n1:p-1_x"));
        assert!(!is_scope_name("") && !is_scope_name("a/b") && !is_scope_name("a b") && !is_scope_name("a,b") && !is_scope_name("a@b"));
        assert_eq!(scope_name("node 1,rack@2/x"), "node_1_rack_2_x");
        assert_eq!(scope_name(""), "_");
        assert!(is_scope_name(&scope_name("ünï/cödé")));
        assert_eq!(scoped(&scope_name("host 7"), "read.svc"), "host_7/read.svc");
    }
}
