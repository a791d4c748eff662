//! The page's requests and timers: `fetch` of a whole file or a byte range, and a wait that
//! leaves the browser free.

use wasm_bindgen::JsCast;

/// Wait `ms` milliseconds (a timer), the browser free meanwhile.
pub(super) async fn sleep_ms(ms: f64) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms.clamp(0.0, 10_000.0) as i32);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}

pub(super) async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let w = web_sys::window().ok_or("no window")?;
    body_of(w.fetch_with_str(url)).await
}

/// A `fetch` of `range` (an HTTP Range header, RFC 9110 section 14.2) of `url`.
pub(super) fn range_request(w: &web_sys::Window, url: &str, range: &str) -> js_sys::Promise {
    let headers = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&headers, &"Range".into(), &range.into());
    let init = web_sys::RequestInit::new();
    init.set_headers(&headers);
    w.fetch_with_str_and_init(url, &init)
}

/// `range` of `url` (a server without range requests sends the whole file).
pub(super) async fn fetch_range(url: &str, range: &str) -> Result<Vec<u8>, String> {
    body_of(range_request(&web_sys::window().ok_or("no window")?, url, range)).await
}

/// The body of a `fetch` response, or why there is none.
pub(super) async fn body_of(fetch: js_sys::Promise) -> Result<Vec<u8>, String> {
    let resp = wasm_bindgen_futures::JsFuture::from(fetch).await.map_err(|_| "could not fetch".to_string())?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|_| "not a response")?;
    if !resp.ok() {
        return Err(format!("HTTP {}", resp.status()));
    }
    let buf =
        wasm_bindgen_futures::JsFuture::from(resp.array_buffer().map_err(|_| "no body")?).await.map_err(|_| "could not read the body")?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}
