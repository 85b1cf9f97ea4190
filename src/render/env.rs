//! The template environment: built-in templates (embedded from `templates/` at build time),
//! overridden file by file from a directory the user names (`--templates DIR`). Strict undefined:
//! a template that reads a missing variable fails instead of printing an empty string.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use minijinja::{Environment, UndefinedBehavior};

mod builtin {
    include!(concat!(env!("OUT_DIR"), "/templates.rs"));
}

/// Template texts that replace built-in ones, by name (`frr/bgp.j2`).
#[derive(Clone, Debug, Default)]
pub struct Templates {
    pub overrides: BTreeMap<String, String>,
}

impl Templates {
    /// Every built-in template name.
    pub fn builtin_names() -> impl Iterator<Item = &'static str> {
        builtin::BUILTIN.iter().map(|(n, _)| *n)
    }

    /// Whether `name` is a built-in template (overrides of unknown names are likely typos).
    pub fn is_builtin(name: &str) -> bool {
        builtin::BUILTIN.iter().any(|(n, _)| *n == name)
    }

    /// The overrides as one text (name, length and body of each, in name order): with the
    /// built-in templates, which the source digest covers, what a rendered config depends on
    /// besides its intent.
    pub fn fingerprint(&self) -> String {
        let mut s = String::new();
        for (name, text) in &self.overrides {
            let _ = writeln!(s, "{name}\n{}\n{text}", text.len());
        }
        s
    }

    pub fn environment(&self) -> Environment<'static> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.set_keep_trailing_newline(true);
        let overrides = self.overrides.clone();
        env.set_loader(move |name| {
            if let Some(t) = overrides.get(name) {
                return Ok(Some(t.clone()));
            }
            Ok(builtin::BUILTIN
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, t)| (*t).to_string()))
        });
        env
    }
}
