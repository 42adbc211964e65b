//! The theme the binary embeds: this repository's `templates/` and `static/`, the files a
//! site has when it has none of its own (a site's `templates/` and `static/` override them
//! file by file). The render and site crates' tests include this same file, so there is
//! one list of the theme's files.

/// Template texts by name.
pub const TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../templates/base.html")),
    ("essay.html", include_str!("../templates/essay.html")),
    ("index.html", include_str!("../templates/index.html")),
    ("ladder.html", include_str!("../templates/ladder.html")),
    ("404.html", include_str!("../templates/404.html")),
];

/// Static files by their path in the output.
pub const STATICS: &[(&str, &[u8])] =
    &[("style.css", include_bytes!("../static/style.css")), ("search.js", include_bytes!("../static/search.js"))];
