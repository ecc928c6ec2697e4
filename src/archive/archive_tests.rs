use super::*;

#[test]
fn sniffs_layers_by_content() {
    assert_eq!(sniff(&[0x1f, 0x8b, 8, 0]), Some(Layer::Gzip));
    assert_eq!(sniff(&[0x28, 0xb5, 0x2f, 0xfd, 0]), Some(Layer::Zstd));
    assert_eq!(sniff(b"\xfd7zXZ\0\0"), Some(Layer::Xz));
    assert_eq!(sniff(b"BZh91AY&SY"), Some(Layer::Bzip2));
    assert_eq!(sniff(b"PK\x03\x04"), Some(Layer::Zip));
    assert_eq!(sniff(b"\x7fTRACE0\n"), None);
    let mut tar = vec![0u8; 512];
    tar[..4].copy_from_slice(b"info");
    tar[257..262].copy_from_slice(b"ustar");
    assert_eq!(sniff(&tar), Some(Layer::Tar));
}

#[test]
fn member_paths_are_screened() {
    assert_eq!(safe_path("./a//b.dat").as_deref(), Some("a/b.dat"));
    assert_eq!(safe_path("../x"), None);
    assert_eq!(safe_path("a/../../x"), None);
    assert_eq!(safe_path("/etc/passwd"), None);
    assert_eq!(safe_path("C:/x"), None);
    assert_eq!(safe_path(""), None);
}

#[test]
fn compressed_names_lose_their_suffix() {
    assert_eq!(inner_name("x.dat.gz", Layer::Gzip), "x.dat");
    assert_eq!(inner_name("u.tgz", Layer::Gzip), "u.tar");
    assert_eq!(inner_name("t.dat.ZST", Layer::Zstd), "t.dat");
    assert_eq!(inner_name("-", Layer::Xz), "-<xz>");
}
