//! GitHub Actions workflow commands (`::error file=F,line=L,col=C,title=T::message`): the one
//! escape of their values. The runner reads a command per line and splits properties at `,`
//! and `=` and the command from its data at `::`, so, as GitHub's own toolkit escapes them
//! (actions/toolkit, `packages/core/src/command.ts`, `escapeData`/`escapeProperty`): `%`, CR and
//! LF in the data become `%25`, `%0D`, `%0A`; a property also has `:` and `,` as `%3A`, `%2C`.
//! Other control characters never reach the log raw: they are shown escaped first
//! (`output::terminal`), so an annotation cannot start a second command or recolour the log.

use super::terminal::escape_inline;

/// A command's data (after `::`): line breaks kept as `%0A`, so a message and its help show as
/// two lines of one annotation.
pub fn data(text: &str) -> String {
    let lines: Vec<String> = text
        .split('\n')
        .map(|l| escape_inline(l).into_owned())
        .collect();
    lines
        .join("\n")
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property's value (`file=`, `title=`): as data, and `:` and `,` escaped too.
pub fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::{data, property};

    #[test]
    fn nothing_in_a_value_ends_the_command() {
        assert_eq!(data("50% of\nports"), "50%25 of%0Aports");
        assert_eq!(property("a:b,c%"), "a%3Ab%2Cc%25");
        assert!(!data("x\r::error::y\u{1b}[31m").contains(['\r', '\u{1b}']));
    }
}
