//! `countersign new NAME`: a new site that builds at once.

use std::path::Path;

use super::{fail, Failure, Outcome};
use crate::console::err;

/// Create the site folder `name` (it must not exist, or be empty) with its files. A
/// `--root` (`root`) names an existing site and is refused here (exit 2), never ignored.
pub fn run(name: &Path, root: Option<&Path>) -> Outcome {
    if let Some(root) = root {
        err(&format!(
            "error: `new` makes the site in NAME, relative to the current folder; `--root {}` names an existing site and does not apply here: write `countersign new {}`\n",
            root.display(),
            shell_word(&root.join(name).display().to_string())
        ));
        return Err(Failure::Usage);
    }
    match crate::scaffold::create(name) {
        Ok(files) => {
            let dir = shell_word(&name.display().to_string());
            err(&format!(
                "created {} ({}); now: cd {dir} && countersign watch --open (or countersign build, to write public/)\n",
                name.display(),
                files.join(", ")
            ));
            Ok(())
        }
        Err(e) => fail(e),
    }
}

/// `word` as a POSIX shell reads it back: as it is when it has only letters, digits and
/// `/._-+,:@%=`, else in single quotes (a `'` inside written `'\''`).
fn shell_word(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_alphanumeric() || "/._-+,:@%=".contains(c)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_folder_named_in_a_hint_is_quoted_for_the_shell_when_it_must_be() {
        assert_eq!(super::shell_word("my-essays/site_2"), "my-essays/site_2");
        assert_eq!(super::shell_word("my essays"), "'my essays'");
        assert_eq!(super::shell_word("it's"), "'it'\\''s'");
        assert_eq!(super::shell_word("$HOME;rm"), "'$HOME;rm'");
        assert_eq!(super::shell_word(""), "''");
    }
}
