//! Every YAML block of the README is a spec a user can paste: it compiles without errors, and
//! builds every output.

use crate::common;

#[test]
fn every_yaml_block_of_the_readme_compiles() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let mut blocks = Vec::new();
    let mut rest = readme.as_str();
    while let Some(start) = rest.find("```yaml\n") {
        let body = &rest[start + 8..];
        let end = body.find("```").expect("closed code block");
        blocks.push(&body[..end]);
        rest = &body[end + 3..];
    }
    assert!(!blocks.is_empty(), "the README shows a spec");
    for b in blocks {
        let files = common::outputs(b);
        assert!(
            files.iter().any(|f| f.path.starts_with("configs/")),
            "README block renders no config:\n{b}"
        );
    }
}
