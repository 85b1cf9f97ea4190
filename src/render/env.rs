//! The template environment: built-in templates (embedded from `templates/` at build time),
//! overridden file by file from a directory the user names (`--templates DIR`). Strict undefined:
//! a template that reads a missing variable fails instead of printing an empty string. Fuel
//! limited: a template (an override is the user's code) that runs longer than [`Templates::FUEL`] steps
//! fails, naming the template and the limit, instead of never ending; and byte limited
//! (`render::budget`): one that prints or joins more than a rendered file may hold fails the same
//! way instead of exhausting memory.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use minijinja::{Environment, UndefinedBehavior};

mod builtin {
    include!(concat!(env!("OUT_DIR"), "/templates.rs"));
}

/// What to add to the message of a render that failed with `e` (the innermost error) because
/// the template ran out of fuel: the limit and where it is set.
pub(crate) fn out_of_fuel(e: &minijinja::Error) -> Option<String> {
    (e.kind() == minijinja::ErrorKind::OutOfFuel).then(|| {
        format!(
            "the template took more than {} steps, the limit of one render (`Templates::FUEL`, \
             src/render/env.rs): a loop that does not end, or one over far more than the spec holds",
            Templates::FUEL
        )
    })
}

/// Template texts that replace built-in ones, by name (`frr/bgp.j2`).
#[derive(Clone, Debug, Default)]
pub struct Templates {
    pub overrides: BTreeMap<String, String>,
}

impl Templates {
    /// The steps one render of a template may take (minijinja's fuel: one per instruction, a
    /// loop's body each time round). Measured with `Template::render_and_return_state` and
    /// `State::fuel_levels` over every template of every inventory and of the 16k-GPU bench spec
    /// (`benches/scale.rs`): the most any built-in template takes is 27,900 (`opensm/partitions.conf.j2`
    /// of dgx-superpod-h100-tenants: 632 member ports at about 44 steps each), then 12,595 for an
    /// EOS switch and 10,026 for an NVUE switch of the 16k bench. Per-switch templates do not grow
    /// with the cluster; `partitions.conf` grows with the InfiniBand ports in tenants, to about
    /// 5.8 million at 131k GPUs (16k nodes of 8 ports). The limit is above that with room to spare,
    /// and 700 times the largest measured: a template override that adds some loops of its own
    /// stays far inside it, one whose loops never end (or run over ranges the spec does not hold)
    /// stops within seconds.
    pub const FUEL: u64 = 20_000_000;

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
        env.set_fuel(Some(Self::FUEL));
        env.set_formatter(|out, state, value| {
            super::budget::count(value)?;
            crate::output::line::formatter(out, state, value)
        });
        // `join` builds one string from many: it stops at the byte budget of a render.
        env.add_filter("join", super::budget::join);
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
