//! One writer per run: a run that resumes state (a training run's folder, a league's results,
//! a judge's records) holds a lock on it while it runs, and a second run on the same state
//! refuses at once, naming the holder, instead of writing into it.
//!
//! The lock is the operating system's advisory lock (flock on Linux) on a lock file: the kernel
//! drops it when its process ends, however it ends, so a killed run never blocks the next one;
//! the file itself holds the holder's pid, for the refusal, and goes when the lock does.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The lock file inside a locked folder.
pub const FOLDER_LOCK: &str = ".lock";

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("{what} is in use by another run ({holder}); wait for it to end or choose another")]
    Held { what: PathBuf, holder: String },
    #[error("cannot lock {what}: {source}")]
    Io { what: PathBuf, source: std::io::Error },
}

/// Held while a run writes its folder or file; released on drop (and by the kernel, if the
/// process is killed).
#[derive(Debug)]
pub struct RunLock {
    path: PathBuf,
    /// Holds the lock while open.
    _file: File,
    /// Folders this lock created, deepest first: removed again on release if still empty, so a
    /// run refused before any work leaves nothing behind.
    created: Vec<PathBuf>,
}

impl RunLock {
    /// Locks the folder `dir` (created if missing) through `dir/.lock`. Temporary files that a
    /// killed run left in it, or in a folder inside it, are removed: no live run writes there.
    pub fn folder(dir: &Path) -> Result<RunLock, LockError> {
        let io = |source| LockError::Io { what: dir.to_path_buf(), source };
        let mut created = Vec::new();
        let mut missing = dir;
        while !missing.as_os_str().is_empty() && !missing.exists() {
            created.push(missing.to_path_buf());
            missing = missing.parent().unwrap_or(Path::new(""));
        }
        std::fs::create_dir_all(dir).map_err(io)?;
        let mut lock = Self::acquire(&dir.join(FOLDER_LOCK), dir)?;
        lock.created = created;
        remove_dead_temp_files(dir);
        Ok(lock)
    }

    /// Locks the file `path` (which need not exist yet) through `path.lock` beside it.
    pub fn file(path: &Path) -> Result<RunLock, LockError> {
        let mut name = path.as_os_str().to_os_string();
        name.push(".lock");
        Self::acquire(Path::new(&name), path)
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn acquire(lock_path: &Path, what: &Path) -> Result<RunLock, LockError> {
        let io = |source| LockError::Io { what: what.to_path_buf(), source };
        loop {
            // Not truncated on opening: until the lock is ours, the pid in it is the holder's.
            let file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(lock_path).map_err(io)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => return Err(LockError::Held { what: what.to_path_buf(), holder: holder(lock_path) }),
                Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
            }
            // The holder before us removes the file as it lets go: a lock on a removed file
            // guards nothing, so take the one now at the path.
            if !same_file(&file, lock_path) {
                continue;
            }
            file.set_len(0).map_err(io)?;
            (&file).write_all(format!("{}\n", std::process::id()).as_bytes()).map_err(io)?;
            return Ok(RunLock { path: lock_path.to_path_buf(), _file: file, created: Vec::new() });
        }
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        // Removed while still held (the file closes after this), so no run ever locks a
        // file that is about to go.
        let _ = std::fs::remove_file(&self.path);
        for dir in &self.created {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// "pid N" of the lock file's holder.
fn holder(lock_path: &Path) -> String {
    // A holder writes its pid just after locking: give it a moment.
    for _ in 0..50 {
        let mut text = String::new();
        if let Ok(mut file) = File::open(lock_path) {
            let _ = file.read_to_string(&mut text);
        }
        if let Ok(pid) = text.trim().parse::<u32>() {
            return format!("pid {pid}");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    "pid unknown".to_string()
}

#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_file: &File, path: &Path) -> bool {
    path.exists()
}

/// Removes the temporary files (`….PID-N.tmp`) of processes that no longer run from `dir` and
/// the folders in it: what a run killed in the middle of a write leaves. Where there is no
/// /proc to ask, nothing is removed.
fn remove_dead_temp_files(dir: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let mut folders = vec![dir.to_path_buf()];
    if let Ok(entries) = std::fs::read_dir(dir) {
        folders.extend(entries.filter_map(|e| e.ok()).filter(|e| e.file_type().is_ok_and(|t| t.is_dir())).map(|e| e.path()));
    }
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for entry in entries.filter_map(|e| e.ok()) {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !model::files::is_unique_temp_name(&name) {
                continue;
            }
            let pid = name.trim_end_matches(".tmp").rsplit_once('.').and_then(|(_, tag)| tag.split_once('-')).map(|(pid, _)| pid.to_string()).unwrap_or_default();
            if pid != std::process::id().to_string() && !Path::new("/proc").join(&pid).exists() {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cupzero-lock-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_second_lock_is_refused_naming_the_holder_and_the_first_release_frees_it() {
        let dir = fresh("second");
        let run = dir.join("run");
        let first = RunLock::folder(&run).unwrap();
        assert_eq!(std::fs::read_to_string(first.path()).unwrap(), format!("{}\n", std::process::id()));
        // The lock is per open file: a second open in this same process is refused like another run's.
        let error = RunLock::folder(&run).unwrap_err().to_string();
        assert!(error.contains(&format!("{} is in use by another run (pid {})", run.display(), std::process::id())), "{error}");
        assert!(!error.contains('\n'));
        std::fs::write(run.join("state.json"), "{}").unwrap();
        drop(first);
        assert!(run.join("state.json").exists() && !run.join(FOLDER_LOCK).exists(), "released locks leave no file");
        let again = RunLock::folder(&run).unwrap();
        drop(again);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_lock_on_a_folder_it_created_removes_the_folder_if_nothing_was_written() {
        let dir = fresh("created");
        let run = dir.join("a/b");
        drop(RunLock::folder(&run).unwrap());
        assert!(!dir.exists(), "every folder the lock made is gone");
        let lock = RunLock::folder(&run).unwrap();
        std::fs::write(run.join("state.json"), "{}").unwrap();
        drop(lock);
        assert!(run.join("state.json").exists() && !run.join(FOLDER_LOCK).exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_lock_sits_beside_the_file_and_a_stale_lock_file_is_taken_over() {
        let dir = fresh("file");
        std::fs::create_dir_all(&dir).unwrap();
        let records = dir.join("games.jsonl");
        // A lock file whose holder died: the kernel released its lock, only the file is left.
        std::fs::write(dir.join("games.jsonl.lock"), "999999999\n").unwrap();
        let lock = RunLock::file(&records).unwrap();
        assert_eq!(lock.path(), dir.join("games.jsonl.lock"));
        let error = RunLock::file(&records).unwrap_err().to_string();
        assert!(error.contains("games.jsonl is in use by another run (pid "), "{error}");
        drop(lock);
        assert!(!dir.join("games.jsonl.lock").exists());
        // A folder that does not exist: one line, nothing created.
        let error = RunLock::file(&dir.join("missing/games.jsonl")).unwrap_err().to_string();
        assert!(error.starts_with("cannot lock ") && !dir.join("missing").exists(), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn temporary_files_of_dead_processes_are_removed_and_live_ones_kept() {
        let dir = fresh("temps");
        std::fs::create_dir_all(dir.join("games")).unwrap();
        let dead = ["state.json.999999999-0.tmp", "games/iter-000001.jsonl.999999999-3.tmp"];
        let live = [format!("weights.czw.{}-0.tmp", std::process::id()), "x.jsonl.tmp".to_string(), "games/iter-000001.jsonl".to_string()];
        for name in dead.iter().map(|s| s.to_string()).chain(live.iter().cloned()) {
            std::fs::write(dir.join(&name), "x").unwrap();
        }
        let lock = RunLock::folder(&dir).unwrap();
        for name in dead {
            assert!(!dir.join(name).exists(), "{name} stays");
        }
        for name in &live {
            assert!(dir.join(name).exists(), "{name} removed");
        }
        drop(lock);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
