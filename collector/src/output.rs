//! Writing files: every command that writes goes through here, so no command writes over one
//! of its own inputs, through a planted symbolic link, over a device, or leaves half a file
//! behind.
//!
//! Three ways to write:
//!
//! - [`write_atomic`] for files written whole (site files, table files, imported archives):
//!   the bytes go to a temporary file with an unpredictable name created exclusively (O_EXCL,
//!   the `tempfile` crate) beside the destination, are synced, and the temporary file is
//!   renamed onto the destination. A rename replaces a symbolic link at the destination
//!   instead of following it; without `Replace::Always` the destination must not exist at all
//!   (the rename is `renameat2(RENAME_NOREPLACE)`/`link`, so two writers cannot both win). On
//!   any error (a full disk) the temporary file is removed and the destination is untouched.
//!   Only a regular file (or a link to one, or to nothing) is ever replaced: a device, FIFO or
//!   socket at the destination, or a link to one, is refused. [`write_same_or_new`] is the
//!   same for files named by their content (`nines export`'s table files): a file already
//!   there with the same content is success.
//! - [`write_output`] for a command's one output file (`-o`, `--csv`): `-` is stdout, and an
//!   existing character device or FIFO (`/dev/null`, a named pipe) is opened and written as a
//!   stream, as the shell's `>` writes it, never replaced; anything else is [`write_atomic`].
//! - [`create_streaming`] for files written as they grow (the collector's archive and raw
//!   log, whose finished windows must survive a kill): opened with O_CREAT|O_EXCL|O_NOFOLLOW,
//!   so a second writer of the same path is refused and a planted link is never followed.
//!   With `--force` the new file is created under a temporary name and renamed over the old
//!   one at once. The returned guard removes the file again if the command fails before it is
//!   disarmed (nothing recorded, nothing left to block a rerun).
//!
//! New files get mode 0666 and new directories 0777, less the umask, as open(2) and mkdir(2)
//! apply it (POSIX `creat`, `mkdir`): what the shell's `>`, `cp` and `mkdir` give, so a site
//! served by a web server running as another user is readable under the usual umask 022.

use std::fs::{File, FileType, OpenOptions};
use std::io::Write;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::sys::{self, FileExt, FileId, FileTypeExt};

/// The mode a new file is created with, before the kernel clears the umask's bits from it
/// (open(2), "O_CREAT": "the effective mode is modified by the process's umask"): 0666, as
/// every Unix tool creates files. The `tempfile` crate's default is 0600.
const FILE_MODE: u32 = 0o666;

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
    ids: Vec<(FileId, PathBuf)>,
}

impl Inputs {
    pub fn new<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) -> Inputs {
        let mut ids = Vec::new();
        for p in paths {
            let p = p.as_ref();
            if let Ok(id) = sys::id_of_path(p) {
                ids.push((id, p.to_path_buf()));
            }
        }
        Inputs { ids }
    }

    /// An error if writing `dest` would replace one of the inputs.
    pub fn check(&self, dest: &Path) -> Result<()> {
        // the destination as it stands (a link is looked through: rename would replace the
        // link, but a link to an input named as output is still almost surely a mistake)
        let shown = dest.display().to_string();
        if let Ok(m) = std::fs::metadata(dest) {
            self.check_file(&m, sys::id_of_path(dest).ok(), &shown)?;
        }
        if let Ok(m) = std::fs::symlink_metadata(dest) {
            self.check_file(&m, sys::id_of_link(dest).ok(), &shown)?;
        }
        Ok(())
    }

    /// An error if the open file `m` describes, of identity `id` (stdout's, say), is one of
    /// the inputs.
    fn check_file(&self, m: &std::fs::Metadata, id: Option<FileId>, dest: &str) -> Result<()> {
        // a character device or FIFO read as input (`/dev/stdin`) is not written over by a
        // write to it: only files are compared
        if !m.is_file() {
            return Ok(());
        }
        if let Some((_, p)) = self.ids.iter().find(|(i, _)| Some(*i) == id) {
            bail!(
                "'{dest}' is one of this command's inputs ('{}'); nines never writes over its input: give another output path",
                p.display()
            );
        }
        Ok(())
    }
}

/// The path that names stdout as an output (`-o -`), as in most Unix tools.
pub const STDOUT: &str = "-";

/// Does `path` name stdout (`-`)?
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == STDOUT
}

/// `path` as a message names it: `stdout` for `-`.
pub fn shown(path: &Path) -> String {
    if is_stdout(path) {
        "stdout".into()
    } else {
        path.display().to_string()
    }
}

/// An error when `path` is `-` where stdout cannot carry the output: `flag` and what it
/// names (`a directory of archives`, say).
pub fn refuse_stdout(path: &Path, flag: &str, holds: &str) -> Result<()> {
    if is_stdout(path) {
        bail!("{flag} -: {flag} names {holds}, which stdout cannot carry; give a path (a file named '-' is ./-)");
    }
    Ok(())
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

/// What a file type is, for messages.
fn kind(t: FileType) -> &'static str {
    if t.is_file() {
        "regular file"
    } else if t.is_dir() {
        "directory"
    } else if t.is_symlink() {
        "symbolic link"
    } else if t.is_char_device() {
        "character device"
    } else if t.is_block_device() {
        "block device"
    } else if t.is_fifo() {
        "FIFO (named pipe)"
    } else if t.is_socket() {
        "socket"
    } else {
        "special file"
    }
}

/// A temporary file beside the destination `name` in `dir`, created exclusively with mode
/// [`FILE_MODE`] (less the umask).
fn temp_in(dir: &Path, name: &str) -> std::io::Result<tempfile::NamedTempFile> {
    let prefix = format!(".{name}.");
    let mut b = tempfile::Builder::new();
    b.prefix(&prefix).suffix(".tmp");
    if let Some(p) = sys::mode(FILE_MODE) {
        b.permissions(p);
    }
    b.tempfile_in(dir)
}

/// Explain a write error, naming the file; a full disk says so and what was kept.
pub fn write_error(e: &std::io::Error, path: &Path, kept: &str) -> anyhow::Error {
    let full = sys::disk_full(e);
    let why = if full { format!("the disk is full ({e}); {kept}") } else { format!("{e}; {kept}") };
    anyhow::anyhow!("could not write '{}': {why}", shown(path))
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
    let existing = if replace == Replace::Always { Existing::Replace } else { Existing::Refuse };
    write_whole(path, existing, true, inputs, fill).map(drop)
}

/// A command's one output file, whole (`nines report -o`, `import -o`, `merge -o`,
/// `export --csv`): `-` is stdout; an existing character device or FIFO is written as a stream
/// (no `--force` needed: nothing is replaced); anything else as [`write_atomic`].
pub fn write_output(path: &Path, bytes: &[u8], replace: Replace, inputs: &Inputs) -> Result<()> {
    write_output_with(path, replace, inputs, |f| f.write_all(bytes))
}

/// [`write_output`] with the bytes produced by `fill`.
pub fn write_output_with(
    path: &Path,
    replace: Replace,
    inputs: &Inputs,
    fill: impl FnOnce(&mut std::io::BufWriter<&File>) -> std::io::Result<()>,
) -> Result<()> {
    if is_stdout(path) {
        return std_stream(path, Std::Out, inputs, fill);
    }
    if let Ok(before) = std::fs::symlink_metadata(path) {
        let t = before.file_type();
        if let Some(s) = link_to_std(path) {
            return std_stream(path, s, inputs, fill);
        }
        if t.is_char_device() || t.is_fifo() {
            inputs.check(path)?;
            let before_id = sys::id_of_link(path).ok();
            // Written where it is, as the shell's `>` does, but without O_CREAT (nothing is
            // created), without O_TRUNC (nothing to truncate on a device; a regular file
            // swapped in meanwhile is not emptied), with O_NOFOLLOW (a link swapped in fails
            // with ELOOP instead of being followed) and O_NOCTTY (a terminal does not become
            // the controlling one). A FIFO's open waits for a reader, as `>` does (fifo(7)).
            let file = sys::no_follow(OpenOptions::new().write(true), sys::O_NOCTTY)
                .open(path)
                .with_context(|| format!("could not open the {} '{}' for writing", kind(t), path.display()))?;
            // the type of what was opened, from the descriptor (fstat), not the path
            let now = file.metadata().with_context(|| format!("could not stat '{}'", path.display()))?;
            let nt = now.file_type();
            if !(nt.is_char_device() || nt.is_fifo()) || sys::id_of(&file).ok() != before_id {
                bail!("'{}' was a {} and changed while nines opened it (now a {}); nothing was written", path.display(), kind(t), kind(nt));
            }
            return stream(&file, path, fill);
        }
    }
    write_atomic_with(path, replace, inputs, fill)
}

/// For a command that reads for minutes before it writes (`nines merge` of a fleet): the
/// commonest refusals [`write_output`] would give at the end, given before any input is read
/// (an existing regular file at `path` without `--force`, an input named as the output).
/// Links and other nodes are left to the write, which names what they are; it checks
/// everything again, as the destination can change meanwhile.
pub fn refuse_early(path: &Path, replace: Replace, inputs: &Inputs) -> Result<()> {
    if is_stdout(path) {
        return Ok(());
    }
    inputs.check(path)?;
    if replace == Replace::Never && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file()) {
        bail!("'{}' already exists; pass --force to replace it", path.display());
    }
    Ok(())
}

/// Does [`write_output`] of `path` write to stdout (`-`, or a link to it such as
/// `/dev/stdout`)? Then what the command says goes to stderr instead.
pub fn goes_to_stdout(path: &Path) -> bool {
    is_stdout(path) || matches!(link_to_std(path), Some(Std::Out))
}

/// `/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/2`: a symbolic link to what this process's
/// stdout or stderr already is, written through that descriptor (nothing is opened by path).
/// Any other link is for [`write_atomic_with`], which replaces it or refuses.
fn link_to_std(path: &Path) -> Option<Std> {
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return None;
    }
    let to = sys::id_of_path(path).ok()?;
    [Std::Out, Std::Err].into_iter().find(|s| s.file().and_then(|f| sys::id_of(&f)).is_ok_and(|id| id == to))
}

/// This process's stdout or stderr.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Std {
    Out,
    Err,
}

impl Std {
    /// A duplicate of the descriptor, written past std's buffer.
    fn file(self) -> std::io::Result<File> {
        sys::std_stream(self == Std::Err)
    }
}

/// Write to stdout or stderr (`path` names it in messages), once what the command printed
/// before has gone out; never into one of `inputs` (`nines import x.log -o - >> x.log`).
fn std_stream(
    path: &Path,
    s: Std,
    inputs: &Inputs,
    fill: impl FnOnce(&mut std::io::BufWriter<&File>) -> std::io::Result<()>,
) -> Result<()> {
    std::io::stdout().flush().map_err(|e| write_error(&e, path, "nothing was written"))?;
    std::io::stderr().flush().map_err(|e| write_error(&e, path, "nothing was written"))?;
    let file = s.file().with_context(|| format!("could not use '{}'", shown(path)))?;
    if let Ok(m) = file.metadata() {
        inputs.check_file(&m, sys::id_of(&file).ok(), &shown(path))?;
    }
    stream(&file, path, fill)
}

/// Write to an open stream (stdout, a character device, a FIFO): no temporary file, no sync
/// (fsync(2) fails with EINVAL on pipes and most devices).
fn stream(file: &File, path: &Path, fill: impl FnOnce(&mut std::io::BufWriter<&File>) -> std::io::Result<()>) -> Result<()> {
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    fill(&mut w).and_then(|()| w.flush()).map_err(|e| write_error(&e, path, "what was written before is all it got"))
}

/// Did [`write_same_or_new`] write the file, or was it there with the same content?
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    New,
    Same,
}

/// Whether two files hold the same content beyond their bytes (the same rows of a table
/// written by another version): `(path, existing, new)`.
pub type SameContent<'a> = &'a dyn Fn(&Path, &File, &File) -> Result<bool>;

/// Write a file named by its content (`nines export`'s `ID.parquet`), whole: a regular file
/// already there (before, or created meanwhile by another process) that holds the same
/// content, the same bytes or what `same` calls the same, is left as it is
/// ([`Written::Same`]); other content is an error naming `--force`, and with `force` the file
/// is replaced. A symbolic link, device, FIFO or socket at `path` is an error either way.
pub fn write_same_or_new(
    path: &Path,
    force: bool,
    inputs: &Inputs,
    same: SameContent,
    fill: impl FnOnce(&mut std::io::BufWriter<&File>) -> std::io::Result<()>,
) -> Result<Written> {
    write_whole(path, if force { Existing::Replace } else { Existing::KeepIfSame(same) }, false, inputs, fill)
}

/// What becomes of a regular file at the destination.
enum Existing<'a> {
    Replace,
    Refuse,
    KeepIfSame(SameContent<'a>),
}

/// The writer behind [`write_atomic_with`] and [`write_same_or_new`]; `links` says whether a
/// symbolic link (to a regular file, or to nothing) may be replaced.
fn write_whole(
    path: &Path,
    existing: Existing,
    links: bool,
    inputs: &Inputs,
    fill: impl FnOnce(&mut std::io::BufWriter<&File>) -> std::io::Result<()>,
) -> Result<Written> {
    inputs.check(path)?;
    let dir = parent_of(path);
    let name = file_name_of(path)?;
    let there = std::fs::symlink_metadata(path).ok();
    if let Some(m) = &there {
        replaceable(path, m.file_type(), links)?;
        if matches!(existing, Existing::Refuse) {
            bail!("'{}' already exists; pass --force to replace it", path.display());
        }
    }
    let tmp = temp_in(dir, &name)
        .with_context(|| format!("could not create a temporary file in '{}' for '{}'", dir.display(), path.display()))?;
    let kept = if there.is_some() && matches!(existing, Existing::Replace) { "the old file is unchanged" } else { "nothing was written" };
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file());
        fill(&mut w).and_then(|()| w.flush()).map_err(|e| write_error(&e, path, kept))?;
    }
    tmp.as_file().sync_all().map_err(|e| write_error(&e, path, kept))?;
    match existing {
        Existing::Replace => {
            tmp.persist(path).map_err(|e| write_error(&e.error, path, kept))?;
        }
        Existing::Refuse | Existing::KeepIfSame(_) => match tmp.persist_noclobber(path) {
            Ok(_) => {}
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {
                let Existing::KeepIfSame(same) = existing else {
                    bail!("'{}' was created by another process meanwhile; pass --force to replace it", path.display());
                };
                // the temporary file is removed when `e.file` drops, whatever the outcome
                if !same_content(path, e.file.as_file(), same)? {
                    bail!(
                        "'{}' already exists and holds other content than nines writes there now (another run under this id, or a file nines did not write); pass --force to replace it",
                        path.display()
                    );
                }
                return Ok(Written::Same);
            }
            Err(e) => return Err(write_error(&e.error, path, kept)),
        },
    }
    sync_dir(dir);
    Ok(Written::New)
}

/// An error unless what is at `path` (of type `t`) may be replaced by a regular file: a
/// regular file may; a directory, device, FIFO or socket never; a symbolic link (replaced,
/// never followed) only when `links` and it leads to a regular file or nowhere: replacing a
/// link to a device (`/dev/stdout`) is as wrong as replacing the device.
fn replaceable(path: &Path, t: FileType, links: bool) -> Result<()> {
    if t.is_file() {
        return Ok(());
    }
    if t.is_dir() {
        bail!("'{}' is a directory; give a file path", path.display());
    }
    if t.is_symlink() {
        if !links {
            bail!("'{}' is a symbolic link; nines does not write through links: remove it, or give the real path", path.display());
        }
        // a link into /proc names an open file (`/dev/stdin` is `/proc/self/fd/0`): replacing
        // it would replace a system link
        if std::fs::read_link(path).is_ok_and(|l| l.starts_with("/proc")) {
            bail!(
                "'{}' is a symbolic link into /proc (an open file's descriptor, as /dev/stdout is); nines neither writes through it nor replaces it: give - for stdout, or a file path",
                path.display()
            );
        }
        return match std::fs::metadata(path) {
            Ok(to) if !to.is_file() => {
                let k = kind(to.file_type());
                bail!(
                    "'{}' is a symbolic link to a {k}; nines neither writes through a link nor replaces one that leads to a {k}: give the {k}'s own path{}",
                    path.display(),
                    if to.is_dir() { " and a file name in it" } else { ", or - for stdout" }
                )
            }
            _ => Ok(()),
        };
    }
    let k = kind(t);
    let why = if t.is_block_device() {
        "nines writes its outputs to files and streams, never onto a disk"
    } else if t.is_socket() {
        "a socket cannot be opened for writing"
    } else {
        "only a command's one output file (-o, --csv) is written into a character device or FIFO"
    };
    bail!("'{}' is a {k}, not a regular file; nines never replaces a {k} ({why}): give a file path", path.display())
}

/// Does the regular file at `path` hold what `new` holds: the same bytes, or what `same`
/// calls the same content? A link or anything but a regular file there is an error.
fn same_content(path: &Path, new: &File, same: SameContent) -> Result<bool> {
    // O_NOFOLLOW: a link planted meanwhile is not followed; O_NONBLOCK: a FIFO planted
    // meanwhile does not hold the open (fifo(7))
    let old = sys::no_follow(OpenOptions::new().read(true), sys::O_NONBLOCK).open(path).map_err(|e| {
        if e.raw_os_error() == Some(libc::ELOOP) {
            anyhow::anyhow!("'{}' is a symbolic link; nines does not write through links: remove it", path.display())
        } else {
            anyhow::Error::new(e).context(format!("could not read '{}'", path.display()))
        }
    })?;
    let m = old.metadata().with_context(|| format!("could not stat '{}'", path.display()))?;
    replaceable(path, m.file_type(), false)?;
    let n = new.metadata().with_context(|| format!("could not stat the temporary file for '{}'", path.display()))?;
    if m.len() == n.len() && equal_bytes(&old, new, m.len()).with_context(|| format!("could not read '{}'", path.display()))? {
        return Ok(true);
    }
    same(path, &old, new)
}

/// Are the first `len` bytes of `a` and `b` equal? (Read at offsets: no file position moves.)
fn equal_bytes(a: &File, b: &File, len: u64) -> std::io::Result<bool> {
    let (mut x, mut y) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    let mut at = 0;
    while at < len {
        let n = (len - at).min(x.len() as u64) as usize;
        a.read_exact_at(&mut x[..n], at)?;
        b.read_exact_at(&mut y[..n], at)?;
        if x[..n] != y[..n] {
            return Ok(false);
        }
        at += n as u64;
    }
    Ok(true)
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
    id: FileId,
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
        if sys::id_of_link(&self.path).is_ok_and(|id| id == self.id) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Create `path` for writing as it grows: exclusively (a second writer of the same path gets
/// an error), never through a symbolic link, and never over one of `inputs`. With `force` an
/// existing regular file is replaced (atomically, by renaming the new file over it).
pub fn create_streaming(path: &Path, force: bool, inputs: &Inputs, what: &str) -> Result<Created> {
    if is_stdout(path) {
        bail!("{what} cannot be - (stdout): it is written as a regular file that nines reads back (the summary, --live) and keeps; give a file path");
    }
    inputs.check(path)?;
    let exists = std::fs::symlink_metadata(path).ok();
    if let Some(m) = &exists {
        if m.file_type().is_symlink() {
            bail!("{what} '{}' is a symbolic link; nines does not write through links: give the real path", path.display());
        }
        if !m.is_file() {
            let k = kind(m.file_type());
            bail!(
                "{what} '{}' is a {k}; it is written as a regular file that nines reads back and keeps, never into or over a {k}: give a file path",
                path.display()
            );
        }
        if !force {
            bail!("{what} '{}' already exists; pass --force to replace it", path.display());
        }
    }
    let file = if exists.is_some() {
        let dir = parent_of(path);
        let name = file_name_of(path)?;
        let tmp = temp_in(dir, &name).with_context(|| format!("could not create {what} '{}'", path.display()))?;
        tmp.persist(path).map_err(|e| anyhow::Error::new(e.error).context(format!("could not create {what} '{}'", path.display())))?
    } else {
        sys::no_follow(OpenOptions::new().write(true).create_new(true), sys::O_CLOEXEC).open(path).map_err(|e| {
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
    let id = sys::id_of(&file).with_context(|| format!("could not stat {what} '{}'", path.display()))?;
    Ok(Created { file, path: path.to_path_buf(), id, keep: false })
}

/// Make `dir` ready to receive new files (`nines curve -o DIR`): created when missing, never
/// through a symbolic link, and refused when it already holds entries unless `into_existing`
/// (even then no file in it is replaced: each file is created with [`create_streaming`]).
pub fn prepare_dir(dir: &Path, into_existing: bool, flag: &str) -> Result<()> {
    refuse_stdout(dir, "-o", "a directory of files")?;
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
    fn files_named_by_content_are_kept_when_the_same_and_refused_when_not() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("id.bin");
        let never: SameContent = &|_, _, _| Ok(false);
        let put = |bytes: &'static [u8], force: bool, same: SameContent| {
            write_same_or_new(&p, force, &Inputs::default(), same, |w| w.write_all(bytes))
        };
        assert_eq!(put(b"rows", false, never).unwrap(), Written::New);
        // the same bytes: kept, success
        assert_eq!(put(b"rows", false, never).unwrap(), Written::Same);
        // other bytes the caller calls the same content (another version's file): kept
        assert_eq!(put(b"ROWS", false, &|_, _, _| Ok(true)).unwrap(), Written::Same);
        assert_eq!(std::fs::read(&p).unwrap(), b"rows");
        // other content: an error naming --force, the file kept; with force, replaced
        let e = put(b"other", false, never).unwrap_err().to_string();
        assert!(e.contains("other content") && e.contains("--force"), "{e}");
        assert_eq!(std::fs::read(&p).unwrap(), b"rows");
        assert_eq!(put(b"other", true, never).unwrap(), Written::New);
        assert_eq!(std::fs::read(&p).unwrap(), b"other");
        // a link there is an error, forced or not, and its target is never written
        std::fs::remove_file(&p).unwrap();
        let target = d.path().join("target");
        std::os::unix::fs::symlink(&target, &p).unwrap();
        for force in [false, true] {
            let e = put(b"rows", force, never).unwrap_err().to_string();
            assert!(e.contains("symbolic link"), "{e}");
        }
        assert!(!target.exists());
        // and no temporary file is left behind
        let names: Vec<String> =
            std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    }

    #[test]
    fn special_files_are_never_replaced() {
        let d = tempfile::tempdir().unwrap();
        let sock = d.path().join("sock");
        let _l = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        let fifo = d.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: c is a NUL-terminated path that lives across the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let to_fifo = d.path().join("to-fifo");
        std::os::unix::fs::symlink(&fifo, &to_fifo).unwrap();
        for (p, kind) in [(&sock, "is a socket"), (&fifo, "is a FIFO"), (&to_fifo, "symbolic link to a FIFO")] {
            for replace in [Replace::Always, Replace::Never] {
                let e = write_atomic(p, b"x", replace, &Inputs::default()).unwrap_err().to_string();
                assert!(e.contains(kind), "{e}");
            }
        }
        // a socket is no stream either
        let e = write_output(&sock, b"x", Replace::Always, &Inputs::default()).unwrap_err().to_string();
        assert!(e.contains("is a socket"), "{e}");
        assert!(std::fs::symlink_metadata(&sock).unwrap().file_type().is_socket());
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        assert!(std::fs::symlink_metadata(&to_fifo).unwrap().file_type().is_symlink());
        // '-' is refused where stdout cannot carry the output
        assert!(create_streaming(Path::new("-"), false, &Inputs::default(), "the archive -o").is_err());
        let e = prepare_dir(Path::new("-"), false, "--into-existing").unwrap_err().to_string();
        assert!(e.contains("stdout"), "{e}");
    }

    #[test]
    fn bounded_reads_name_the_limit() {
        let e = read_bounded(Path::new("/dev/zero"), 1 << 20, "the notes").unwrap_err().to_string();
        assert!(e.contains("larger than 1MiB"), "{e}");
    }
}
