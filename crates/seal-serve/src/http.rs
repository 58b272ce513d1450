//! The panel's HTTP side: a middleware that runs `decide_trust` over every request before it is
//! routed and adds the security headers to every response, the static panel, and the API
//! (spec/approval-server.md, "The HTTP API").

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::header::{HeaderName, HeaderValue, CONTENT_TYPE};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Extension, Router};
use futures_util::stream::{self, StreamExt};
use seal_parse::json::{parse, Fields, JsonLimits};
use seal_policy::approval::trust::{decide_trust, RequestTrust, MAX_API_BODY_BYTES};

use crate::state::{blocking, Shared};

/// The panel's page and its static files, compiled in.
const INDEX_HTML: &str = include_str!("../panel/index.html");
const APP_JS: &str = include_str!("../panel/app.js");
const APP_CSS: &str = include_str!("../panel/app.css");

/// How often an idle event stream gets a `: keep-alive` comment.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The headers every response carries.
const SECURITY_HEADERS: [(&str, &str); 7] = [
    (
        "content-security-policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
         img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    ),
    ("x-frame-options", "DENY"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
    ("cross-origin-resource-policy", "same-origin"),
    ("cross-origin-opener-policy", "same-origin"),
    ("cache-control", "no-store"),
];

/// What the trust decision let through, for the handlers.
#[derive(Clone)]
struct Grant {
    bearer: Option<Arc<str>>,
    body_bytes: u64,
}

#[derive(Clone)]
struct Fence {
    trust: Arc<RequestTrust>,
}

/// The router: every route behind the fence.
pub(crate) fn router(shared: Arc<Shared>, trust: RequestTrust) -> Router {
    let fence = Fence {
        trust: Arc::new(trust),
    };
    Router::new()
        .route("/", get(index))
        .route("/app.js", get(app_js))
        .route("/app.css", get(app_css))
        .route("/api/pair", post(pair))
        .route("/api/events", get(events))
        .route("/api/respond", post(respond))
        .route("/api/tokens", get(tokens))
        .route("/api/tokens/{id}", delete(revoke))
        .route("/api/approvers", get(approvers))
        .route("/api/approvers/enrol", post(enrol_start))
        .route("/api/approvers/enrol/finish", post(enrol_finish))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(fence, fenced))
        .with_state(shared)
}

/// Runs `decide_trust` before routing; refused requests get a bare 403 and the rule goes to
/// the operator's log. Every response gets the security headers.
async fn fenced(State(fence): State<Fence>, mut request: Request, next: Next) -> Response {
    let decision = {
        let uri = request.uri();
        // An absolute-form or authority-form target is passed whole, so the target rule sees it.
        let target = if uri.scheme().is_some() || uri.authority().is_some() {
            uri.to_string()
        } else {
            uri.path_and_query()
                .map_or_else(|| uri.path().to_owned(), |pq| pq.as_str().to_owned())
        };
        let headers: Vec<(&str, &[u8])> = request
            .headers()
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_bytes()))
            .collect();
        let method = request.method().as_str();
        match decide_trust(&fence.trust, method, &target, &headers) {
            Ok(trusted) => Ok(Grant {
                bearer: trusted.bearer().map(Arc::from),
                body_bytes: trusted.body_bytes(),
            }),
            Err(rule) => {
                let path = target.split('?').next().unwrap_or_default();
                eprintln!(
                    "seal serve: refused {} {}: {}",
                    method.escape_debug(),
                    path.escape_debug(),
                    rule.name()
                );
                Err(())
            }
        }
    };
    let response = match decision {
        Ok(grant) => {
            request.extensions_mut().insert(grant);
            next.run(request).await
        }
        Err(()) => bare(StatusCode::FORBIDDEN),
    };
    secured(response)
}

fn secured(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in SECURITY_HEADERS {
        headers.insert(
            HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
    response
}

fn bare(status: StatusCode) -> Response {
    (status, Body::empty()).into_response()
}

fn typed(content_type: &'static str, body: impl Into<Body>) -> Response {
    ([(CONTENT_TYPE, content_type)], body.into()).into_response()
}

fn json(body: String) -> Response {
    typed("application/json", body)
}

async fn index() -> Response {
    typed("text/html; charset=utf-8", INDEX_HTML)
}

async fn app_js() -> Response {
    typed("text/javascript; charset=utf-8", APP_JS)
}

async fn app_css() -> Response {
    typed("text/css; charset=utf-8", APP_CSS)
}

async fn not_found() -> Response {
    bare(StatusCode::NOT_FOUND)
}

/// The body, no longer than the length the request declared (at most 64 KiB).
async fn body_of(grant: &Grant, body: Body) -> Result<Vec<u8>, Response> {
    let limit = usize::try_from(grant.body_bytes.min(MAX_API_BODY_BYTES)).unwrap_or(0);
    axum::body::to_bytes(body, limit)
        .await
        .map(|bytes| bytes.to_vec())
        .map_err(|_| bare(StatusCode::BAD_REQUEST))
}

/// The token's id when the bearer is a valid token, else a 401.
async fn authenticated(shared: &Arc<Shared>, grant: &Grant) -> Result<String, Response> {
    let Some(bearer) = grant.bearer.clone() else {
        return Err(bare(StatusCode::UNAUTHORIZED));
    };
    blocking(shared, move |shared| shared.authenticate(&bearer))
        .await
        .flatten()
        .ok_or_else(|| bare(StatusCode::UNAUTHORIZED))
}

async fn pair(
    State(shared): State<Arc<Shared>>,
    Extension(grant): Extension<Grant>,
    body: Body,
) -> Response {
    let body = match body_of(&grant, body).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let Some(secret) = pairing_secret(&body) else {
        return bare(StatusCode::BAD_REQUEST);
    };
    match blocking(&shared, move |shared| shared.pair(&secret))
        .await
        .flatten()
    {
        Some((token, token_id, expires_ms)) => json(
            serde_json::json!({"token": token, "token_id": token_id, "expires_ms": expires_ms})
                .to_string(),
        ),
        None => bare(StatusCode::UNAUTHORIZED),
    }
}

/// `{"secret":P}`, strictly.
fn pairing_secret(body: &[u8]) -> Option<String> {
    let value = parse(body, &JsonLimits::DEFAULT).ok()?;
    let mut fields = Fields::of(&value, "").ok()?;
    fields.only(&["secret"]).ok()?;
    let secret = fields.string("secret").ok()?.to_owned();
    fields.finish().ok()?;
    Some(secret)
}

async fn events(State(shared): State<Arc<Shared>>, Extension(grant): Extension<Grant>) -> Response {
    let token_id = match authenticated(&shared, &grant).await {
        Ok(id) => id,
        Err(response) => return response,
    };
    let Some((first, receiver)) = blocking(&shared, |shared| shared.subscribe()).await else {
        return bare(StatusCode::SERVICE_UNAVAILABLE);
    };
    let first = stream::iter(
        first
            .into_iter()
            .map(|frame| Ok::<Event, Infallible>(Event::default().data(frame))),
    );
    // A panel that falls too far behind (or a server going away) ends its stream; it
    // reconnects and gets the replay. A stream whose token was revoked or expired ends before
    // its next frame.
    let live = stream::unfold(
        (receiver, shared, token_id),
        |(mut receiver, shared, token_id)| async move {
            let frame = receiver.recv().await.ok()?;
            if !shared.token_is_live(&token_id) {
                return None;
            }
            Some((
                Ok::<Event, Infallible>(Event::default().data(&*frame)),
                (receiver, shared, token_id),
            ))
        },
    );
    Sse::new(first.chain(live))
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE).text(" keep-alive"))
        .into_response()
}

async fn respond(
    State(shared): State<Arc<Shared>>,
    Extension(grant): Extension<Grant>,
    body: Body,
) -> Response {
    if let Err(response) = authenticated(&shared, &grant).await {
        return response;
    }
    let body = match body_of(&grant, body).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    match blocking(&shared, move |shared| shared.respond(&body)).await {
        Some(receipt) => json(receipt),
        None => bare(StatusCode::SERVICE_UNAVAILABLE),
    }
}

async fn tokens(State(shared): State<Arc<Shared>>, Extension(grant): Extension<Grant>) -> Response {
    if let Err(response) = authenticated(&shared, &grant).await {
        return response;
    }
    match blocking(&shared, |shared| shared.tokens_json()).await {
        Some(list) => json(list),
        None => bare(StatusCode::SERVICE_UNAVAILABLE),
    }
}

async fn revoke(
    State(shared): State<Arc<Shared>>,
    Extension(grant): Extension<Grant>,
    Path(id): Path<String>,
) -> Response {
    if let Err(response) = authenticated(&shared, &grant).await {
        return response;
    }
    match blocking(&shared, move |shared| shared.revoke(&id)).await {
        Some(true) => json("{\"revoked\":true}".to_owned()),
        _ => bare(StatusCode::NOT_FOUND),
    }
}

async fn approvers(
    State(shared): State<Arc<Shared>>,
    Extension(grant): Extension<Grant>,
) -> Response {
    if let Err(response) = authenticated(&shared, &grant).await {
        return response;
    }
    let listed = blocking(&shared, |shared| match shared.check.enrolment() {
        Some(approvers) => approvers.list_json().map_err(|error| {
            eprintln!("seal serve: approvers: {error}");
        }),
        None => Ok("{\"approvers\":[]}".to_owned()),
    })
    .await;
    match listed {
        Some(Ok(list)) => json(list),
        _ => bare(StatusCode::SERVICE_UNAVAILABLE),
    }
}

async fn enrol_start(
    State(shared): State<Arc<Shared>>,
    Extension(grant): Extension<Grant>,
    body: Body,
) -> Response {
    if let Err(response) = authenticated(&shared, &grant).await {
        return response;
    }
    if let Err(response) = body_of(&grant, body).await {
        return response;
    }
    let started = blocking(&shared, |shared| {
        shared
            .check
            .enrolment()
            .map(crate::approvers::Approvers::enrol_start)
    })
    .await
    .flatten();
    match started {
        Some(Ok(options)) => json(options),
        Some(Err(refused)) => enrol_refused(&refused),
        None => bare(StatusCode::NOT_FOUND),
    }
}

async fn enrol_finish(
    State(shared): State<Arc<Shared>>,
    Extension(grant): Extension<Grant>,
    body: Body,
) -> Response {
    if let Err(response) = authenticated(&shared, &grant).await {
        return response;
    }
    let body = match body_of(&grant, body).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let finished = blocking(&shared, move |shared| {
        shared
            .check
            .enrolment()
            .map(|approvers| approvers.enrol_finish(&body))
    })
    .await
    .flatten();
    match finished {
        Some(Ok(id)) => {
            eprintln!("seal serve: approver {id} enrolled");
            json(serde_json::json!({ "approver": id }).to_string())
        }
        Some(Err(refused)) => enrol_refused(&refused),
        None => bare(StatusCode::NOT_FOUND),
    }
}

fn enrol_refused(refused: &crate::approvers::EnrolRefusal) -> Response {
    eprintln!(
        "seal serve: enrolment refused ({}): {}",
        refused.reason,
        refused.detail.escape_debug()
    );
    json(serde_json::json!({ "refused": refused.reason }).to_string())
}
