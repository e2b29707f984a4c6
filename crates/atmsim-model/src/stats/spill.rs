//! The series file: sampled values streamed to disk during the run, a row group at a time,
//! so that the memory a run's series take stays flat however long it runs.
//!
//! Layout (every number little-endian; documented in docs/CONTRACTS.md, "Time series"):
//!
//! | bytes          | what                                                             |
//! |----------------|------------------------------------------------------------------|
//! | 0..8           | magic `ATMSERS1`                                                 |
//! | 8..12          | u32 format version (1)                                           |
//! | 12..16         | u32 state: 0 while being written, 1 once complete                |
//! | 16..24         | u64 columns `c`                                                  |
//! | 24..32         | u64 rows `n` (0 until complete)                                  |
//! | 32..40         | u64 rows per row group (every group but the last has this many)  |
//! | 40..64         | zero                                                             |
//! | 64..           | `n` rows of `c` f64 values, row major (row groups back to back)  |
//! | then           | `n` f64: each row's sample time [s]                              |
//!
//! A reader maps the values as an `n x c` array (numpy `memmap`) without copying them. The
//! state and the row count are written last, after everything else: a run that is
//! interrupted or crashes leaves a file whose state is 0, which readers refuse.

use super::SeriesFile;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The file's first 8 bytes.
pub const MAGIC: &[u8; 8] = b"ATMSERS1";
/// The layout's version.
pub const VERSION: u32 = 1;
/// Bytes before the first value.
pub const HEADER_BYTES: u64 = 64;
/// About how many values a row group holds (1 MiB of them): what a spilling run keeps in
/// memory of its series, besides the sample times.
pub const GROUP_VALUES: usize = 1 << 17;

/// Rows per row group for `columns` columns: as many whole rows as fit in
/// [`GROUP_VALUES`], at least one.
pub fn group_rows(columns: usize) -> usize {
    (GROUP_VALUES / columns.max(1)).max(1)
}

fn header(state: u32, columns: u64, rows: u64, group_rows: u64) -> [u8; HEADER_BYTES as usize] {
    let mut h = [0u8; HEADER_BYTES as usize];
    h[0..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&state.to_le_bytes());
    h[16..24].copy_from_slice(&columns.to_le_bytes());
    h[24..32].copy_from_slice(&rows.to_le_bytes());
    h[32..40].copy_from_slice(&group_rows.to_le_bytes());
    h
}

/// Writes a series file. An I/O error is kept (the rest is not written) and reported when
/// the file is completed.
#[derive(Debug)]
pub(crate) struct SpillWriter {
    path: PathBuf,
    out: Option<BufWriter<File>>,
    columns: usize,
    group_rows: usize,
    rows: u64,
    /// The values' little-endian bytes (a big-endian target's copy).
    #[cfg_attr(target_endian = "little", allow(dead_code))]
    bytes: Vec<u8>,
    error: Option<String>,
}

impl SpillWriter {
    /// Creates (or truncates) the file at `path` for rows of `columns` values written in
    /// groups of `group_rows`, and writes its header, marked incomplete.
    pub fn create(path: &Path, columns: usize, group_rows: usize) -> std::io::Result<Self> {
        let mut out = BufWriter::new(File::create(path)?);
        out.write_all(&header(0, columns as u64, 0, group_rows as u64))?;
        out.flush()?;
        Ok(SpillWriter {
            path: path.to_path_buf(),
            out: Some(out),
            columns,
            group_rows,
            rows: 0,
            bytes: Vec::new(),
            error: None,
        })
    }

    pub fn group_rows(&self) -> usize {
        self.group_rows
    }

    fn fail(&mut self, e: std::io::Error) {
        self.error = Some(format!(
            "cannot write the series to {}: {e}",
            self.path.display()
        ));
        self.out = None;
    }

    /// Appends whole rows (row major).
    pub fn write_rows(&mut self, values: &[f64]) {
        if values.is_empty() {
            return;
        }
        debug_assert_eq!(values.len() % self.columns.max(1), 0);
        self.rows += (values.len() / self.columns.max(1)) as u64;
        self.write_f64(values);
    }

    fn write_f64(&mut self, values: &[f64]) {
        let Some(out) = &mut self.out else {
            return;
        };
        #[cfg(target_endian = "little")]
        let bytes = {
            // SAFETY: f64 has no padding and every byte pattern is a valid u8; the slice
            // covers exactly the values' memory, which outlives it. On a little-endian target
            // these are the values' little-endian bytes.
            unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), values.len() * 8) }
        };
        #[cfg(not(target_endian = "little"))]
        let bytes = {
            self.bytes.clear();
            self.bytes.reserve(values.len() * 8);
            for v in values {
                self.bytes.extend_from_slice(&v.to_le_bytes());
            }
            &self.bytes[..]
        };
        if let Err(e) = out.write_all(bytes) {
            self.fail(e);
        }
    }

    /// What the file is before it is complete.
    pub fn incomplete(&self) -> SeriesFile {
        SeriesFile {
            path: self.path.clone(),
            rows: self.rows,
            group_rows: self.group_rows as u64,
            complete: false,
            error: self.error.clone(),
        }
    }

    /// Writes the sample times after the values, then the header with the row count and
    /// the complete state.
    pub fn complete(mut self, times: &[f64]) -> SeriesFile {
        debug_assert_eq!(times.len() as u64, self.rows);
        self.write_f64(times);
        if let Some(mut out) = self.out.take() {
            let rows = self.rows;
            let done = (|| {
                out.flush()?;
                let mut f = out.into_inner().map_err(|e| e.into_error())?;
                f.seek(SeekFrom::Start(0))?;
                f.write_all(&header(
                    1,
                    self.columns as u64,
                    rows,
                    self.group_rows as u64,
                ))?;
                f.flush()
            })();
            match done {
                Ok(()) => {
                    return SeriesFile {
                        path: self.path.clone(),
                        rows,
                        group_rows: self.group_rows as u64,
                        complete: true,
                        error: None,
                    }
                }
                Err(e) => self.fail(e),
            }
        }
        self.incomplete()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &Path) -> (Vec<u8>, u32, u64, u64, u64, Vec<f64>) {
        let b = std::fs::read(path).unwrap();
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let floats = b[HEADER_BYTES as usize..]
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        (
            b[0..8].to_vec(),
            u32_at(12),
            u64_at(16),
            u64_at(24),
            u64_at(32),
            floats,
        )
    }

    /// The file holds the header, the rows in order and the times after them; it says it is
    /// incomplete until completed.
    #[test]
    fn a_file_is_marked_complete_last() {
        let dir = std::env::temp_dir().join(format!("atmsim-spill-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("series.bin");
        let mut w = SpillWriter::create(&path, 2, group_rows(2)).unwrap();
        w.write_rows(&[1.0, 2.0, 3.0, 4.0]);
        w.write_rows(&[5.0, f64::NAN]);
        assert!(!w.incomplete().complete);
        w.out.as_mut().unwrap().flush().unwrap();
        let (magic, state, cols, rows, _, _) = read(&path);
        assert_eq!((magic.as_slice(), state, cols, rows), (&MAGIC[..], 0, 2, 0));
        let f = w.complete(&[0.0, 0.5, 1.0]);
        assert!(f.complete && f.error.is_none() && f.rows == 3);
        let (_, state, cols, rows, group, vals) = read(&path);
        assert_eq!((state, cols, rows, group), (1, 2, 3, group_rows(2) as u64));
        assert_eq!(&vals[..5], &[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert!(vals[5].is_nan());
        assert_eq!(&vals[6..], &[0.0, 0.5, 1.0]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_row_group_is_whole_rows() {
        assert_eq!(group_rows(1), GROUP_VALUES);
        assert_eq!(group_rows(GROUP_VALUES * 3), 1);
        assert!(group_rows(10_030) * 10_030 <= GROUP_VALUES);
    }

    #[test]
    fn a_file_that_cannot_be_created_is_an_error() {
        let path = std::env::temp_dir()
            .join("atmsim-no-such-dir-x")
            .join("s.bin");
        assert!(SpillWriter::create(&path, 3, 1).is_err());
    }
}
