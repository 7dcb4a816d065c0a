//! Damaged, foreign and missing table files: a clear error naming the
//! file, and probes that answer "not in the tablebase", never a wrong
//! value. Generation resumes where it stopped.

use shashki_rules::{DrawCounters, DrawRules, Position};
use shashki_tablebase::{Material, Progress, TableError, Tablebases, Wdl, generate};
use std::path::{Path, PathBuf};

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shashki-tb-files-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Tables up to 3 pieces (well under a second).
fn made(name: &str) -> PathBuf {
    let dir = fresh_dir(name);
    generate(&dir, 3, &DrawRules::default(), &mut |_| {}).unwrap();
    dir
}

/// King and man against king: table `1K1M-1K0M`.
const KMK: &str = "W:WKb2,c3:BKh8";
fn kmk_file(dir: &Path) -> PathBuf {
    let pos = Position::from_fen(KMK).unwrap();
    dir.join(Material::of(&pos).file_name())
}

fn probe(tb: &Tablebases) -> Option<Wdl> {
    let pos = Position::from_fen(KMK).unwrap();
    tb.probe(&pos, &DrawCounters::start(&pos)).map(|p| p.wdl)
}

fn load_one_error(dir: &Path) -> (Tablebases, TableError) {
    let (tb, mut errors) = Tablebases::load(dir, DrawRules::default(), 3);
    assert_eq!(errors.len(), 1, "{errors:?}");
    (tb, errors.remove(0))
}

#[test]
fn intact_tables_load_and_answer() {
    let dir = made("intact");
    let (tb, errors) = Tablebases::load(&dir, DrawRules::default(), 3);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(tb.len(), 16);
    assert!(probe(&tb).is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_truncated_file_is_reported_and_left_out() {
    let dir = made("truncated");
    let path = kmk_file(&dir);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let (tb, err) = load_one_error(&dir);
    assert!(matches!(err, TableError::Truncated { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("1K1M-1K0M.stb") && text.contains("truncated"),
        "{text}"
    );
    assert_eq!(probe(&tb), None);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_corrupted_byte_fails_the_checksum() {
    let dir = made("corrupt");
    let path = kmk_file(&dir);
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    let (tb, err) = load_one_error(&dir);
    assert!(matches!(err, TableError::Checksum { .. }), "{err}");
    assert!(err.to_string().contains("corrupted"));
    assert_eq!(probe(&tb), None);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn another_format_version_is_refused() {
    let dir = made("version");
    let path = kmk_file(&dir);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[8..12].copy_from_slice(&99u32.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let (tb, err) = load_one_error(&dir);
    match err {
        TableError::FormatVersion {
            found, expected, ..
        } => {
            assert_eq!((found, expected), (99, shashki_tablebase::FORMAT_VERSION))
        }
        other => panic!("{other}"),
    }
    assert_eq!(probe(&tb), None);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_of_another_signature_is_refused() {
    let dir = made("signature");
    let path = kmk_file(&dir);
    // The colour-swapped table has the same size: only the header tells.
    let other = dir.join("1K0M-1K1M.stb");
    std::fs::copy(&other, &path).unwrap();
    let (tb, err) = load_one_error(&dir);
    assert!(matches!(err, TableError::Signature { .. }), "{err}");
    assert_eq!(probe(&tb), None);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tables_of_other_draw_rules_are_refused() {
    let dir = made("rules");
    let other = DrawRules {
        few_pieces_plies: 20,
        ..DrawRules::default()
    };
    let (tb, errors) = Tablebases::load(&dir, other, 3);
    assert_eq!(errors.len(), 16);
    assert!(
        matches!(errors[0], TableError::Rules { .. }),
        "{}",
        errors[0]
    );
    assert!(tb.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_signature_answers_not_in_the_tablebase() {
    let dir = made("missing");
    std::fs::remove_file(kmk_file(&dir)).unwrap();
    let (tb, errors) = Tablebases::load(&dir, DrawRules::default(), 3);
    assert!(errors.is_empty());
    assert_eq!(probe(&tb), None);
    // Positions beyond the loaded pieces are not in it either.
    let five = Position::from_fen("W:WKa1,c3,e3:BKh8,g7").unwrap();
    assert!(tb.probe(&five, &DrawCounters::start(&five)).is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn generation_resumes_with_the_missing_and_damaged_tables() {
    let dir = made("resume");
    std::fs::remove_file(kmk_file(&dir)).unwrap();
    let damaged = dir.join("2K0M-1K0M.stb");
    let bytes = std::fs::read(&damaged).unwrap();
    std::fs::write(&damaged, &bytes[..100]).unwrap();
    let mut regenerated = Vec::new();
    let tb = generate(&dir, 3, &DrawRules::default(), &mut |p| {
        if let Progress::Done(reports) = p {
            regenerated.extend(
                reports
                    .iter()
                    .filter(|r| r.generated)
                    .map(|r| r.material.to_string()),
            );
        }
    })
    .unwrap();
    regenerated.sort();
    // Each comes back with its colour-swapped partner (made together).
    assert_eq!(
        regenerated,
        ["1K0M-1K1M", "1K0M-2K0M", "1K1M-1K0M", "2K0M-1K0M"]
    );
    assert!(probe(&tb).is_some());
    let (_, errors) = Tablebases::load(&dir, DrawRules::default(), 3);
    assert!(errors.is_empty(), "{errors:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
