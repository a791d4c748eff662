//! The page's DOM: mounting a [`crate::tree`] of nodes (as one string of HTML, text and
//! attribute values escaped; the tree itself is plain data, built and tested natively), the
//! body's test attributes, the clock and downloads.

use wasm_bindgen::JsCast;

pub(super) use crate::tree::{el, tx, Node};

/// Replace the children of `parent` with `nodes`.
pub(super) fn mount(parent: &web_sys::Element, nodes: &[Node]) {
    parent.set_inner_html(&Node::html(nodes));
}

pub(super) fn body() -> Option<web_sys::HtmlElement> {
    web_sys::window()?.document()?.body()
}

pub(super) fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

pub(super) fn busy() {
    if let Some(b) = body() {
        let _ = b.set_attribute("data-nines-idle", "0");
    }
}

pub(super) fn download(name: &str, mime: &str, data: &[u8]) {
    let arr = js_sys::Uint8Array::from(data);
    let parts = js_sys::Array::of1(&arr);
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    download_url(name, &url);
    let _ = web_sys::Url::revoke_object_url(&url);
}

pub(super) fn download_url(name: &str, url: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Ok(a) = doc.create_element("a") else { return };
    let a: web_sys::HtmlAnchorElement = a.unchecked_into();
    a.set_href(url);
    a.set_download(name);
    a.click();
}
