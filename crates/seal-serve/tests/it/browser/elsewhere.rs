//! Another site on another loopback port (a dev server the agent might have started): a page
//! that frames the panel and tries every request a page can make without the bearer token.

use std::io::{Read, Write};
use std::net::TcpListener;

use seal_serve::hookwire::Ask;

/// Serves the hostile page on `127.0.0.1:port` until the test ends; answers its port.
pub fn serve_hostile_page(panel_port: u16, rpc_id: u64, ask: &Ask) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port for the other site");
    let port = listener
        .local_addr()
        .expect("the listener's address")
        .port();
    let page = hostile_page(panel_port, rpc_id, ask);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = Vec::new();
            let mut buffer = [0u8; 4096];
            while !request.windows(4).any(|window| window == b"\r\n\r\n") {
                match stream.read(&mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buffer[..n]),
                }
            }
            let answer = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    port
}

/// The page: the panel in an iframe, then a JSON `fetch` POST (needs a preflight), a `no-cors`
/// text POST, a `text/plain` form POST, a `fetch` and an `EventSource` of the events and a
/// WebSocket, each allowing the pending entry by its real ids. `window.results` names what
/// each got; `window.done` is set when all have finished.
fn hostile_page(panel_port: u16, rpc_id: u64, ask: &Ask) -> String {
    let panel = format!("http://localhost:{panel_port}");
    let response = serde_json::json!({
        "response": {
            "approval_id": ask.approval_id,
            "outcome": "allowed-once",
            "rpc_id": rpc_id,
            "session_id": ask.session_id,
        },
        "assertion": null,
    })
    .to_string();
    let response_js = serde_json::Value::String(response).to_string();
    format!(
        r#"<!doctype html>
<html><head><meta charset="utf-8"><title>another site</title></head>
<body>
<iframe id="panel" name="panel" src="{panel}/" width="900" height="600"></iframe>
<iframe name="sink" width="10" height="10"></iframe>
<form id="form" method="post" action="{panel}/api/respond" enctype="text/plain" target="sink">
<input type="hidden" id="field" name="">
</form>
<script>
window.results = {{}};
window.framed = false;
window.done = false;
document.getElementById('panel').addEventListener('load', () => {{ window.framed = true; }});
const panel = '{panel}';
const body = {response_js};
async function attempt(name, run) {{
  try {{ window.results[name] = await run(); }}
  catch (error) {{ window.results[name] = 'error ' + error.name; }}
}}
function settle(run) {{
  return new Promise((resolve) => {{
    const timer = setTimeout(() => resolve('no answer'), 5000);
    run((what) => {{ clearTimeout(timer); resolve(what); }});
  }});
}}
(async () => {{
  await attempt('fetch-json', async () => {{
    const answer = await fetch(panel + '/api/respond', {{
      method: 'POST', headers: {{ 'Content-Type': 'application/json' }}, body }});
    return 'status ' + answer.status + ' ' + await answer.text();
  }});
  await attempt('no-cors', async () => {{
    const answer = await fetch(panel + '/api/respond', {{
      method: 'POST', mode: 'no-cors', headers: {{ 'Content-Type': 'text/plain' }}, body }});
    return 'opaque ' + answer.type;
  }});
  await attempt('form', async () => {{
    // A text/plain form sends `name=value`: the name carries the JSON up to a last member.
    const field = document.getElementById('field');
    field.name = body.slice(0, -1) + ',"pad":"';
    field.value = '"}}';
    document.getElementById('form').submit();
    return 'submitted';
  }});
  await attempt('fetch-events', async () => {{
    const answer = await fetch(panel + '/api/events');
    return 'status ' + answer.status;
  }});
  await attempt('event-source', () => settle((done) => {{
    const source = new EventSource(panel + '/api/events');
    source.onmessage = (event) => {{ source.close(); done('message ' + event.data); }};
    source.onerror = () => {{ source.close(); done('error'); }};
  }}));
  await attempt('websocket', () => settle((done) => {{
    const socket = new WebSocket(panel.replace('http:', 'ws:') + '/api/events');
    socket.onopen = () => {{ socket.close(); done('open'); }};
    socket.onerror = () => done('error');
  }}));
  window.done = true;
}})();
</script>
</body></html>
"#
    )
}
