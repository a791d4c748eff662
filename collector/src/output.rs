//! Writing files: every command that writes goes through here, so no command writes over one
//! of its own inputs, through a planted symbolic link, or leaves half a file behind.
//!
//! Two ways to write:
//!
//! - [`write_atomic`] for files written whole (reports, site files, imported archives): the
//!   bytes go to a temporary file with an unpredictable name created exclusively (O_EXCL, the
//!   `tempfile` crate) beside the destination, are synced, and the temporary file is renamed
//!   onto the destination. A rename replaces a symbolic link at the destination instead of
//!   following it; without `Replace::Always` the destination must not exist at all (the
//!   rename is `renameat2(RENAME_NOREPLACE)`/`link`, so two writers cannot both win). On any
//!   error (a full disk) the temporary file is removed and the destination is untouched.
//! - [`create_streaming`] for files written as they grow (the collector's archive and raw
//!   log, whose finished windows must survive a kill): opened with O_CREAT|O_EXCL|O_NOFOLLOW,
//!   so a second writer of the same path is refused and a planted link is never followed.
//!   With `--force` the new file is created under a temporary name and renamed over the old
//!   one at once. The returned guard removes the file again if the command fails before it is
//!   disarmed (nothing recorded, nothing left to block a rerun).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// May a write replace an existing file?
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replace {
    /// Yes (the command's documented behaviour, or `--force`).
    Always,
    /// No: an existing file (or link) at the destination is an error naming `--force`.
    Never,
}

/// The files a command reads, so that none of them is written over. Compared by device and
/// inode (a hard link or a path through a symbolic link is the same file), and by resolved
/// path for inputs that are gone.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    ids: Vec<(u64, u64, PathBuf)>,
}

impl Inputs {
    pub fn new<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) -> Inputs {
        let mut ids = Vec::new();
        for p in paths {
            let p = p.as_ref();
            if let Ok(m) = std::fs::metadata(p) {
                ids.push((m.dev(), m.ino(), p.to_path_buf()));
            }
        }
        Inputs { ids }
    }

    /// An error if writing `dest` would replace one of the inputs.
    pub fn check(&self, dest: &Path) -> Result<()> {
        // the destination as it stands (a link is looked through: rename would replace the
        // link, but a link to an input named as output is still almost surely a mistake)
        for m in [std::fs::metadata(dest).ok(), std::fs::symlink_metadata(dest).ok()].into_iter().flatten() {
            if let Some((_, _, p)) = self.ids.iter().find(|(d, i, _)| *d == m.dev() && *i == m.ino()) {
                bail!(
                    "'{}' is one of this command's inputs ('{}'); nines never writes over its input: give another output path",
                    dest.display(),
                    p.display()
                );
            }
        }
        Ok(())
    }
}

/// The directory a path is in (`.` for a bare name).
pub fn parent_of(path: &Path) -> &Path {
    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

fn file_name_of(path: &Path) -> Result<String> {
    match path.file_name() {
        Some(n) => Ok(n.to_string_lossy().into_owned()),
        None => bail!("'{}' does not name a file", path.display()),
    }
}

/// Explain a write error, naming the file; a full disk says so and what was kept.
pub fn write_error(e: &std::io::Error, path: &Path, kept: &str) -> anyhow::Error {
    let full = matches!(e.raw_os_error(), Some(libc::ENOSPC) | Some(libc::EDQUOT));
    let why = if full { format!("the disk is full ({e}); {kept}") } else { format!("{e}; {kept}") };
    anyhow::anyhow!("could not write '{}': {why}", path.display())
}

/// Write `bytes` to `path` whole, through an exclusive temporary file, synced, then renamed.
/// `inputs` are never written over; with [`Replace::Never`] an existing destination is an
/// error that names `--force`.
pub fn write_atomic(path: &Path, bytes: &[u8], replace: Replace, inputs: &Inputs) -> Result<()> {
    write_atomic_with(path, replace, inputs, |f| f.write_all(bytes))
}

/// [`write_atomic`] with the bytes produced by `fill` straight into the (buffered) file.
pub fn write_atomic_with(
    path: &Path,
    replace: Replace,
    inputs: &Inputs,
    fill: impl FnOnce(&mut std::io::BufWriter<&File>) -> std::io::Result<()>,
) -> Result<()> {
    inputs.check(path)?;
    let dir = parent_of(path);
    let name = file_name_of(path)?;
    if let Ok(m) = std::fs::symlink_metadata(path) {
        if m.is_dir() {
            bail!("'{}' is a directory; give a file path", path.display());
        }
        if replace == Replace::Never {
            bail!("'{}' already exists; pass --force to replace it", path.display());
        }
    }
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)
        .with_context(|| format!("could not create a temporary file in '{}' for '{}'", dir.display(), path.display()))?;
    let kept = if replace == Replace::Always && path.exists() { "the old file is unchanged" } else { "nothing was written" };
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file());
        fill(&mut w).and_then(|()| w.flush()).map_err(|e| write_error(&e, path, kept))?;
    }
    tmp.as_file().sync_all().map_err(|e| write_error(&e, path, kept))?;
    match replace {
        Replace::Always => {
            tmp.persist(path).map_err(|e| write_error(&e.error, path, kept))?;
        }
        Replace::Never => {
            tmp.persist_noclobber(path).map_err(|e| {
                if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                    anyhow::anyhow!("'{}' was created by another process meanwhile; pass --force to replace it", path.display())
                } else {
                    write_error(&e.error, path, kept)
                }
            })?;
        }
    }
    sync_dir(dir);
    Ok(())
}

/// Make a rename in `dir` durable (best effort: not every file system syncs directories).
fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// A file the command created and removes again unless [`Created::keep`] is called: the
/// collector's archive while nothing has been recorded.
pub struct Created {
    pub file: File,
    path: PathBuf,
    id: (u64, u64),
    keep: bool,
}

impl Created {
    /// The file stays (it holds what the user asked for).
    pub fn keep(&mut self) {
        self.keep = true;
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Another handle on the file (the guard keeps its own).
    pub fn try_clone(&self) -> Result<File> {
        self.file.try_clone().with_context(|| format!("could not reopen '{}'", self.path.display()))
    }
}

impl Drop for Created {
    fn drop(&mut self) {
        if self.keep {
            return;
        }
        // remove it only if the path still names the file this command created
        if std::fs::symlink_metadata(&self.path).is_ok_and(|m| (m.dev(), m.ino()) == self.id) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Create `path` for writing as it grows: exclusively (a second writer of the same path gets
/// an error), never through a symbolic link, and never over one of `inputs`. With `force` an
/// existing regular file is replaced (atomically, by renaming the new file over it).
pub fn create_streaming(path: &Path, force: bool, inputs: &Inputs, what: &str) -> Result<Created> {
    inputs.check(path)?;
    let exists = std::fs::symlink_metadata(path).ok();
    if let Some(m) = &exists {
        if m.file_type().is_symlink() {
            bail!("{what} '{}' is a symbolic link; nines does not write through links: give the real path", path.display());
        }
        if !m.is_file() {
            bail!("{what} '{}' exists and is not a regular file; give a file path", path.display());
        }
        if !force {
            bail!("{what} '{}' already exists; pass --force to replace it", path.display());
        }
    }
    let file = if exists.is_some() {
        let dir = parent_of(path);
        let name = file_name_of(path)?;
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .tempfile_in(dir)
            .with_context(|| format!("could not create {what} '{}'", path.display()))?;
        tmp.persist(path).map_err(|e| anyhow::Error::new(e.error).context(format!("could not create {what} '{}'", path.display())))?
    } else {
        OpenOptions::new().write(true).create_new(true).custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC).open(path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                anyhow::anyhow!(
                    "{what} '{}' was created by another process meanwhile (is another nines writing it?); give another path",
                    path.display()
                )
            } else {
                anyhow::Error::new(e).context(format!("could not create {what} '{}'", path.display()))
            }
        })?
    };
    let m = file.metadata().with_context(|| format!("could not stat {what} '{}'", path.display()))?;
    Ok(Created { file, path: path.to_path_buf(), id: (m.dev(), m.ino()), keep: false })
}

/// Make `dir` ready to receive new files (`nines curve -o DIR`): created when missing, never
/// through a symbolic link, and refused when it already holds entries unless `into_existing`
/// (even then no file in it is replaced: each file is created with [`create_streaming`]).
pub fn prepare_dir(dir: &Path, into_existing: bool, flag: &str) -> Result<()> {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => {
            bail!("'{}' is a symbolic link; nines does not write through links: give the real directory", dir.display())
        }
        Ok(m) if !m.is_dir() => bail!("'{}' exists and is not a directory; give a directory path", dir.display()),
        Ok(_) => {
            let mut entries = std::fs::read_dir(dir).with_context(|| format!("could not read directory '{}'", dir.display()))?;
            if !into_existing {
                if let Some(e) = entries.next() {
                    let name = e.map(|e| e.file_name().to_string_lossy().into_owned()).unwrap_or_default();
                    bail!(
                        "the directory '{}' is not empty (it holds '{name}'); give a new or empty directory, or pass {flag} to add to it (no file in it is replaced)",
                        dir.display()
                    );
                }
            }
            Ok(())
        }
        Err(_) => std::fs::create_dir_all(dir).with_context(|| format!("could not create directory '{}'", dir.display())),
    }
}

/// Read at most `limit` bytes of `path` whole; more is an error naming the limit. For small
/// side inputs (notes, manifests).
pub fn read_bounded(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>> {
    use std::io::Read;
    let f = File::open(path).with_context(|| format!("could not read {what} '{}'", path.display()))?;
    let mut bytes = Vec::new();
    f.take(limit + 1).read_to_end(&mut bytes).with_context(|| format!("could not read {what} '{}'", path.display()))?;
    if bytes.len() as u64 > limit {
        bail!("{what} '{}' is larger than {}, the most nines reads for it", path.display(), nines_core::units::format_size(limit));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_writes_refuse_inputs_links_and_existing_files() {
        let d = tempfile::tempdir().unwrap();
        let input = d.path().join("in.hlog");
        std::fs::write(&input, b"input").unwrap();
        let inputs = Inputs::new([&input]);
        // over the input: refused, input intact
        let e = write_atomic(&input, b"x", Replace::Always, &inputs).unwrap_err().to_string();
        assert!(e.contains("one of this command's inputs"), "{e}");
        // through a hard link to the input: refused too
        let hard = d.path().join("hard.hlog");
        std::fs::hard_link(&input, &hard).unwrap();
        assert!(write_atomic(&hard, b"x", Replace::Always, &inputs).is_err());
        assert_eq!(std::fs::read(&input).unwrap(), b"input");
        // a dangling link at the destination is replaced, its target never created
        let outside = d.path().join("outside");
        let link = d.path().join("out.html");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        write_atomic(&link, b"page", Replace::Always, &inputs).unwrap();
        assert!(!outside.exists());
        assert_eq!(std::fs::read(&link).unwrap(), b"page");
        assert!(!std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        // never replace
        let e = write_atomic(&link, b"again", Replace::Never, &inputs).unwrap_err().to_string();
        assert!(e.contains("--force"), "{e}");
        // no temporary file is left behind
        let names: Vec<String> =
            std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    }

    #[test]
    fn streaming_files_are_exclusive_and_removed_unless_kept() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("run.hlog");
        let first = create_streaming(&p, false, &Inputs::default(), "the archive -o").unwrap();
        let e = create_streaming(&p, false, &Inputs::default(), "the archive -o").err().unwrap().to_string();
        assert!(e.contains("already exists"), "{e}");
        drop(first);
        assert!(!p.exists(), "a file never kept is removed");
        let mut kept = create_streaming(&p, false, &Inputs::default(), "the archive -o").unwrap();
        kept.keep();
        drop(kept);
        assert!(p.exists());
        // --force replaces a file, never a link
        let link = d.path().join("link.hlog");
        std::os::unix::fs::symlink(d.path().join("elsewhere"), &link).unwrap();
        assert!(create_streaming(&link, true, &Inputs::default(), "the archive -o").is_err());
        assert!(!d.path().join("elsewhere").exists());
        let mut again = create_streaming(&p, true, &Inputs::default(), "the archive -o").unwrap();
        again.keep();
    }

    #[test]
    fn bounded_reads_name_the_limit() {
        let e = read_bounded(Path::new("/dev/zero"), 1 << 20, "the notes").unwrap_err().to_string();
        assert!(e.contains("larger than 1MiB"), "{e}");
    }
}
