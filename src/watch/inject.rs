//! What the dev server adds to every HTML page it serves: the reload script and, while
//! the latest build has errors, the error overlay. Built sites never contain either.

pub use countersign_render::markdown::escape;

use countersign_core::text::count;

/// The reload script for a page served at `generation`: it listens to
/// `/__countersign/events` and reloads as soon as the server reports another generation
/// (the server sends its current one on connecting, so a build finished while the page
/// loaded is not missed, and a restarted server reloads the page too). The scroll position
/// survives the reload. When the browser gives the channel up (the server answered 503
/// because its listener pool was full), the script opens it again a second later.
pub fn reload_script(generation: u64) -> String {
    format!(
        r#"<script id="countersign-reload">(()=>{{const g={generation},k="countersign-scroll:"+location.pathname,y=sessionStorage.getItem(k);if(y!==null){{sessionStorage.removeItem(k);addEventListener("load",()=>scrollTo(0,+y));}}const c=()=>{{const es=new EventSource("/__countersign/events");es.onmessage=e=>{{if(+e.data!==g){{es.close();sessionStorage.setItem(k,String(scrollY));location.reload();}}}};es.onerror=()=>{{if(es.readyState===2)setTimeout(c,1000);}};}};c();}})();</script>"#
    )
}

/// The overlay showing a failed build's diagnostics (`rendered`: as the terminal shows
/// them, without colour). Styled inline so no site stylesheet can hide it.
pub fn overlay(rendered: &str, generation: u64, have_good: bool) -> String {
    let errors = rendered.lines().filter(|l| l.starts_with("error")).count();
    let under = if have_good {
        "The page underneath is the last good build; it is replaced as soon as a save builds."
    } else {
        "No build has succeeded yet; what is underneath is this build's rendering."
    };
    format!(
        concat!(
            r#"<div id="countersign-error" role="alert" style="all:initial;position:fixed;z-index:2147483647;left:0;right:0;top:0;max-height:75vh;overflow:auto;"#,
            r#"box-sizing:border-box;padding:14px 18px;background:#fff4f2;color:#3b0a05;border-bottom:4px solid #c0261a;box-shadow:0 6px 24px rgba(0,0,0,.35);font:14px/1.45 system-ui,sans-serif">"#,
            r#"<button type="button" onclick="this.parentNode.remove()" title="Hide until the next build" style="all:initial;float:right;cursor:pointer;font:13px system-ui,sans-serif;color:#a11b10;border:1px solid #c0261a;border-radius:4px;padding:2px 8px;background:#fff">hide</button>"#,
            r#"<div style="font-weight:700;font-size:16px;color:#a11b10;margin-bottom:6px">countersign: build {} failed with {}</div>"#,
            r#"<div style="margin-bottom:10px">{}</div>"#,
            r#"<pre style="margin:0;white-space:pre;overflow-x:auto;font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#1d1d1d;background:#fff;border:1px solid #e6b8b3;padding:10px;border-radius:4px">{}</pre></div>"#
        ),
        generation,
        count(errors.max(1), "error"),
        under,
        escape(rendered.trim_end())
    )
}

/// `html` with `extra` inserted before its last `</body>` (ASCII case-insensitive), or
/// appended when there is none.
pub fn before_body_end(html: &str, extra: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let at = lower.rfind("</body").unwrap_or(html.len());
    let mut out = String::with_capacity(html.len() + extra.len());
    out.push_str(&html[..at]);
    out.push_str(extra);
    out.push_str(&html[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn injection_goes_before_the_last_body_end() {
        assert_eq!(before_body_end("<p>a</p></BODY></html>", "X"), "<p>a</p>X</BODY></html>");
        assert_eq!(before_body_end("<p>a</p>", "X"), "<p>a</p>X");
        assert_eq!(before_body_end("é</body>", "X"), "éX</body>");
    }

    #[test]
    fn the_overlay_escapes_diagnostics_and_counts_errors() {
        let o = overlay("error: stated value disagrees\n  ┌─ essays/a.md:3:5\n<b>\nerror: another\n", 4, true);
        assert!(o.contains(r#"id="countersign-error""#));
        assert!(o.contains("build 4 failed with 2 errors"));
        // One error, and a failure whose errors the overlay cannot count, both say "1 error".
        assert!(overlay("error: stated value disagrees\n", 5, true).contains("build 5 failed with 1 error<"));
        assert!(overlay("the build stopped\n", 6, false).contains("build 6 failed with 1 error<"));
        assert!(o.contains("essays/a.md:3:5"));
        assert!(o.contains("&lt;b&gt;") && !o.contains("<b>"));
        assert!(reload_script(7).contains("const g=7,"));
    }
}
