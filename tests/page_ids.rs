//! Heading ids never take an id the page around the body uses: a heading "Calls g" or "How
//! computed" took `calls-g` / `how-computed`, so a claim's link to its provenance entry
//! jumped to the heading instead (issue 15, item 12).

use std::process::Command;

#[test]
fn headings_named_like_the_provenance_list_keep_the_claims_links_on_it() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("site");
    std::fs::create_dir_all(root.join("essays")).unwrap();
    std::fs::write(
        root.join("essays/e.md"),
        "---\ntitle: Ids\n---\n\n## Calls g\n\n## How computed\n\n## References\n\n```census\nid: g\nrun: sylver.census\nwith: { max_genus: 4 }\n```\n\n\
         There are {{ g.positions = 14 }} positions; see [[#calls-g]].\n",
    )
    .unwrap();
    let out = d.path().join("public");
    let o = Command::new(env!("CARGO_BIN_EXE_countersign"))
        .arg("--root")
        .arg(&root)
        .args(["--no-color", "build", "--no-cache", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = std::fs::read_to_string(out.join("e/index.html")).unwrap();
    for id in ["calls-g", "how-computed"] {
        assert_eq!(page.matches(&format!("id=\"{id}\"")).count(), 1, "id {id} is not unique in:\n{page}");
    }
    assert!(page.contains("<li id=\"calls-g\">") && page.contains("href=\"#calls-g\""), "{page}");
    assert!(page.contains("<h2 id=\"h-calls-g\">") && page.contains("<h2 id=\"h-how-computed\">"), "{page}");
    assert!(page.contains("<h2 id=\"h-references\">"), "{page}");
    // A link to the heading by its text still finds it.
    assert!(page.contains("href=\"#h-calls-g\""), "{page}");
}

/// Every id on the page, in order.
fn ids(page: &str) -> Vec<&str> {
    page.split(" id=\"").skip(1).map(|t| &t[..t.find('"').unwrap_or(0)]).collect()
}

/// A heading named like a generated id — a claim's certificate, an equation, a figure —
/// took that id, so the claim's `aria-describedby` named the heading (issue 31, item 9).
/// Generated ids never collide with authors' ids, and every id on the page is unique.
#[test]
fn headings_named_like_certificates_equations_and_figures_take_other_ids() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("site");
    std::fs::create_dir_all(root.join("essays")).unwrap();
    std::fs::write(
        root.join("essays/e.md"),
        "---\ntitle: Ids\n---\n\n## Claim 0 certificate\n\n## Claim 1 certificate\n\n## Eq 1\n\n## Fig g\n\n\
         ```census\nid: g\nrun: sylver.census\nwith: { max_genus: 4 }\n```\n\n\
         There are {{ g.positions = 14 }} positions, and {{ g.positions = 14 }} again.\n\n$$\nx = 1\n$$\n",
    )
    .unwrap();
    let out = d.path().join("public");
    let o = Command::new(env!("CARGO_BIN_EXE_countersign"))
        .arg("--root")
        .arg(&root)
        .args(["--no-color", "build", "--no-cache", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = std::fs::read_to_string(out.join("e/index.html")).unwrap();
    let all = ids(&page);
    for id in &all {
        assert_eq!(all.iter().filter(|i| *i == id).count(), 1, "id {id} is not unique in {all:?}");
    }
    for id in ["claim-0-certificate", "claim-1-certificate", "eq-1"] {
        assert!(all.contains(&id), "no {id} in {all:?}");
    }
    assert!(page.contains("<h2 id=\"h-claim-0-certificate\">"), "{all:?}");
}
