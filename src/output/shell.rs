//! The one quoting of POSIX shell words: every generated script and every command railyard
//! runs through `sh -c`, locally or on a device.

/// `s` as one shell word that the shell takes literally: plain words as they are, anything
/// else single-quoted (a quote inside closes, is escaped and reopens: `'a'\''b'`).
pub fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@+,".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn plain_words_stay_and_everything_else_is_one_literal_word() {
        assert_eq!(quote("swp1"), "swp1");
        assert_eq!(quote("/var/run/frr"), "/var/run/frr");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("a'b"), r"'a'\''b'");
        assert_eq!(quote("$(reboot)\n"), "'$(reboot)\n'");
    }

    /// POSIX sh reads each quoted word back as exactly the original string.
    #[test]
    fn sh_reads_back_the_same_word() {
        let words = [
            "plain",
            "a b",
            "it's",
            "$HOME `x` \\ \" ;|&",
            "line\nbreak",
            "*?[a]",
        ];
        for w in words {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf '%s' {}", quote(w)))
                .output()
                .expect("sh runs");
            assert_eq!(String::from_utf8_lossy(&out.stdout), w);
        }
    }
}
