//! Files written whole or not at all while other runs may write beside them: every temporary
//! file belongs to one process and one write (its name holds the pid and a counter, and it is
//! created exclusively), so two runs never share one, and a rename puts the whole file in place.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Counts this process's temporary files, so that its threads never pick one name twice.
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// A temporary name beside `path` for this process and this write: `path.PID-N.tmp`.
pub fn unique_temp_path(path: &Path) -> PathBuf {
    let n = NEXT_TEMP.fetch_add(1, Ordering::Relaxed);
    let mut name = path.as_os_str().to_os_string();
    name.push(format!(".{}-{n}.tmp", std::process::id()));
    PathBuf::from(name)
}

/// Whether `name` is one of [`unique_temp_path`]'s names (`….PID-N.tmp`).
pub fn is_unique_temp_name(name: &str) -> bool {
    let Some(rest) = name.strip_suffix(".tmp") else { return false };
    let Some((_, tag)) = rest.rsplit_once('.') else { return false };
    let Some((pid, n)) = tag.split_once('-') else { return false };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(pid) && digits(n)
}

/// A new temporary file beside `path`, created exclusively: a name left by a killed process
/// of the same pid is passed over, never written into.
pub fn create_temp(path: &Path) -> std::io::Result<(PathBuf, File)> {
    loop {
        let tmp = unique_temp_path(path);
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Writes a file whole or not at all: into a temporary file of its own, then renamed over
/// `path`. A failed write removes its temporary file.
pub fn write_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let (tmp, mut file) = create_temp(path)?;
    let written = file.write_all(contents).and_then(|_| {
        drop(file);
        std::fs::rename(&tmp, path)
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_are_unique_and_recognised() {
        let a = unique_temp_path(Path::new("runs/x.json"));
        let b = unique_temp_path(Path::new("runs/x.json"));
        assert_ne!(a, b);
        for name in [&a, &b] {
            assert!(is_unique_temp_name(&name.file_name().unwrap().to_string_lossy()), "{}", name.display());
        }
        for name in ["x.json", "x.json.tmp", "x.jsonl.tmp", "x.1-.tmp", "x.a-1.tmp", "1-2.tmp"] {
            assert!(!is_unique_temp_name(name), "{name}");
        }
    }

    #[test]
    fn writes_are_whole_and_leave_no_temporary_file() {
        let dir = std::env::temp_dir().join(format!("cupzero-model-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.txt");
        write_atomically(&path, b"one").unwrap();
        write_atomically(&path, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        let names: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["a.txt"]);
        // Two temporary files for one path are two files.
        let (first, _) = create_temp(&path).unwrap();
        let (second, _) = create_temp(&path).unwrap();
        assert_ne!(first, second);
        assert!(first.exists() && second.exists());
        // Into a folder that does not exist: an error, and nothing left behind.
        assert!(write_atomically(&dir.join("missing/b.txt"), b"x").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
