// The seal approval panel (spec/approval-server.md, "The server"). No build step, no library:
// the page is served under `script-src 'self'` and builds every node with createElement and
// textContent, so nothing the server relays (cards, reasons, commands) is ever parsed as HTML.
'use strict';

(function () {
  const TOKEN_KEY = 'seal.panel.token';
  const FIRST_BACKOFF_MS = 250;
  const MAX_BACKOFF_MS = 5000;
  // After a reconnection, a card the replay has not repeated within this time is no longer
  // pending (it settled while the stream was down and its resolved frame was missed).
  const REPLAY_GRACE_MS = 3000;
  const TAIL_CHARS = 80;

  const REFUSALS = {
    duplicate: 'already answered',
    late: 'already answered',
    stale: 'already answered',
    unauthenticated: 'a security key is required',
    foreign: 'the answer does not match this approval (foreign)',
    malformed: 'the server could not read the answer (malformed)',
  };

  const CAUSES = {
    'machine-answered': 'answered by a machine answerer',
    aborted: 'aborted',
    'hook-gone': 'the waiting hook went away',
    'answered-elsewhere': 'answered elsewhere (at the agent\'s own prompt)',
    'machine-cancelled': 'cancelled by the machine client',
    timeout: 'timed out',
    unavailable: 'unavailable',
    shutdown: 'the server shut down',
  };

  const OUTCOMES = {
    'allowed-once': 'allowed once',
    rejected: 'refused',
    cancelled: 'cancelled',
    unavailable: 'unavailable',
  };

  const state = {
    token: null,
    approvers: 0,
    credentials: [], // enrolled credential ids (base64url), when the server lists them
    enrolSecret: null, // the start-up enrolment secret from `#pair=P&enrol=E`, memory only
    clockOffsetMs: 0, // the server's clock minus this page's
    connected: false,
    connections: 0, // hello frames received: how many times the stream was (re)established
    cards: new Map(), // rpc id -> entry
    unconfirmed: new Set(), // rpc ids not yet replayed since the last hello
    graceTimer: null,
  };

  const el = (id) => document.getElementById(id);

  document.addEventListener('DOMContentLoaded', start);

  async function start() {
    el('enrol').addEventListener('click', enrol);
    // A pairing address pasted into an open panel changes only the fragment: load it afresh.
    window.addEventListener('hashchange', () => {
      if (location.hash.startsWith('#pair=')) location.reload();
    });
    setInterval(tick, 1000);
    await pair();
    if (!state.token) {
      showUnpaired();
      return;
    }
    el('keys').hidden = false;
    renderKeys();
    renderEmpty();
    downlink();
  }

  // ---- Pairing ---------------------------------------------------------------------------

  async function pair() {
    // `#pair=P`, or from `seal serve`'s own terminal `#pair=P&enrol=E` (E enrols the first
    // security key; it is kept in this page's memory only).
    const match = /^#pair=([A-Za-z0-9_-]+)(?:&enrol=([A-Za-z0-9_-]+))?$/.exec(location.hash);
    if (match && match[2]) state.enrolSecret = match[2];
    if (match) {
      // Out of the address bar (and so out of history and bookmarks) before anything else.
      history.replaceState(null, '', location.pathname + location.search);
      try {
        const answer = await fetch('/api/pair', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ secret: match[1] }),
          cache: 'no-store',
          credentials: 'omit',
        });
        if (!answer.ok) throw new Error('the server answered ' + answer.status);
        const paired = await answer.json();
        if (typeof paired.token !== 'string') throw new Error('the answer has no token');
        state.token = paired.token;
        sessionStorage.setItem(TOKEN_KEY, paired.token);
        return;
      } catch (error) {
        showProblem('Pairing failed (' + error.message + '): a pairing address works once. ' +
          'Run `seal serve pair` for a new one.');
      }
    }
    state.token = sessionStorage.getItem(TOKEN_KEY);
  }

  function showUnpaired() {
    state.token = null;
    sessionStorage.removeItem(TOKEN_KEY);
    el('unpaired').hidden = false;
    el('keys').hidden = true;
    setStatus('Not paired');
  }

  // Every API call: the bearer token in a header (no cookie exists), JSON on POSTs. `fetch`
  // is looked up at each call, never kept.
  function api(path, body) {
    const init = {
      headers: { Authorization: 'Bearer ' + state.token },
      cache: 'no-store',
      credentials: 'omit',
      redirect: 'error',
    };
    if (body !== undefined) {
      init.method = 'POST';
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(path, init);
  }

  // ---- Downlink: server-sent events over fetch -----------------------------------------------

  async function downlink() {
    let backoff = FIRST_BACKOFF_MS;
    for (;;) {
      try {
        const answer = await api('/api/events');
        if (answer.status === 401) {
          showUnpaired();
          dropAllCards('the pairing expired or was revoked');
          return;
        }
        if (!answer.ok || !answer.body) throw new Error('the server answered ' + answer.status);
        await readEvents(answer.body, () => { backoff = FIRST_BACKOFF_MS; });
      } catch (error) {
        // Reconnected below; the replay brings every pending card back under its rpc id.
      }
      state.connected = false;
      setStatus('Disconnected: reconnecting in ' + Math.ceil(backoff / 1000) + ' s');
      await sleep(backoff);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      setStatus('Reconnecting');
    }
  }

  // Reads `data:` lines; a blank line ends an event; `:` lines are comments (keep-alive).
  async function readEvents(body, onHello) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let data = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let newline;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        let line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.endsWith('\r')) line = line.slice(0, -1);
        if (line === '') {
          if (data.length > 0) {
            const frame = JSON.parse(data.join('\n'));
            data = [];
            if (frame.type === 'hello') onHello();
            handle(frame);
          }
        } else if (line.startsWith(':')) {
          // A comment.
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
        }
        // Other fields (event, id, retry) are not used by this server.
      }
    }
  }

  function handle(frame) {
    switch (frame.type) {
      case 'hello': return hello(frame);
      case 'approval/requested': return requested(frame);
      case 'approval/resolved': return resolved(frame);
      default: return undefined;
    }
  }

  function hello(frame) {
    state.connected = true;
    state.connections += 1;
    document.body.dataset.connections = String(state.connections);
    state.clockOffsetMs = Number(frame.now_ms) - Date.now();
    state.approvers = Number(frame.approvers) || 0;
    state.credentials = Array.isArray(frame.credentials) ? frame.credentials.map(String) : [];
    const warning = el('warning');
    if (typeof frame.warning === 'string' && frame.warning !== '') {
      warning.textContent = frame.warning;
      warning.hidden = false;
    } else {
      warning.textContent = '';
      warning.hidden = true;
    }
    el('problem').hidden = true;
    renderKeys();
    setStatus('Connected');
    // The replay repeats every pending entry in rpc id order; what it does not repeat settled
    // while the stream was down.
    state.unconfirmed = new Set(state.cards.keys());
    clearTimeout(state.graceTimer);
    state.graceTimer = setTimeout(() => {
      for (const rpcId of state.unconfirmed) forget(rpcId, 'no longer pending');
      state.unconfirmed.clear();
    }, REPLAY_GRACE_MS);
  }

  function requested(frame) {
    const rpcId = Number(frame.rpc_id);
    state.unconfirmed.delete(rpcId);
    // Replay and live frames come in rpc id order: an unconfirmed card below this id was not
    // replayed.
    for (const other of Array.from(state.unconfirmed)) {
      if (other < rpcId) {
        state.unconfirmed.delete(other);
        forget(other, 'no longer pending');
      }
    }
    if (state.cards.has(rpcId)) return; // a replay of a card already shown
    const entry = buildCard(frame);
    state.cards.set(rpcId, entry);
    // Oldest (lowest rpc id) first.
    let before = null;
    for (const [otherId, other] of state.cards) {
      if (otherId > rpcId && (before === null || otherId < Number(before.dataset.rpcId))) {
        before = other.node;
      }
    }
    el('cards').insertBefore(entry.node, before);
    updateCountdown(entry);
    renderEmpty();
  }

  function resolved(frame) {
    const rpcId = Number(frame.rpc_id);
    const entry = state.cards.get(rpcId);
    if (!entry) return;
    state.unconfirmed.delete(rpcId);
    let note;
    if (frame.cause === 'answered') {
      const outcome = OUTCOMES[frame.outcome] || frame.outcome;
      // The resolved frame may overtake this page's own receipt.
      const mine = entry.accepted === frame.outcome || entry.sending === frame.outcome;
      note = mine ? outcome : 'answered elsewhere: ' + outcome;
    } else {
      note = CAUSES[frame.cause] || String(frame.cause);
    }
    forget(rpcId, note);
  }

  function forget(rpcId, note) {
    const entry = state.cards.get(rpcId);
    if (!entry) return;
    state.cards.delete(rpcId);
    entry.node.remove();
    log(entry, note);
    renderEmpty();
  }

  function dropAllCards(note) {
    for (const rpcId of Array.from(state.cards.keys())) forget(rpcId, note);
  }

  // ---- Cards -----------------------------------------------------------------------------

  function buildCard(frame) {
    const rpcId = Number(frame.rpc_id);
    const node = make('article', 'card');
    node.dataset.rpcId = String(rpcId);
    node.setAttribute('aria-labelledby', 'card-title-' + rpcId);

    const title = make('h3', 'card-title');
    title.id = 'card-title-' + rpcId;
    title.textContent = String(frame.tool) + ' for ' + String(frame.agent);
    const meta = make('p', 'card-meta');
    meta.textContent = 'Request #' + rpcId + ', session ' + String(frame.session_id);
    node.append(title, meta);

    const reason = make('p', 'reason');
    reason.append(visible(String(frame.reason)));
    node.append(reason);

    // Kept on screen while any of the card is: the command's end, the countdown, the
    // receipt and the buttons, all outside the scroll regions.
    const footer = make('div', 'card-footer');

    const scroll = make('div', 'card-scroll');
    scroll.tabIndex = 0;
    scroll.setAttribute('role', 'region');
    scroll.setAttribute('aria-label', 'Approval card');
    const card = make('pre', 'card-text');
    card.append(visible(String(frame.card)));
    scroll.append(card);
    node.append(scroll);

    if (typeof frame.command === 'string') {
      const command = frame.command;
      const chars = Array.from(command);
      const label = make('p', 'command-label');
      label.textContent = 'Command';
      const box = make('div', 'command-scroll');
      box.tabIndex = 0;
      box.setAttribute('role', 'region');
      box.setAttribute('aria-label', 'Command line');
      const text = make('pre', 'command-text');
      text.append(visible(command));
      box.append(text);
      // The end of a command is where a long one hides its surprise: say how long it is and
      // show its end outside the scroll region, so it is on screen whatever the box shows.
      const tail = make('p', 'command-tail');
      const ends = chars.length > TAIL_CHARS ? 'last ' + TAIL_CHARS + ' characters' : 'whole';
      tail.append(plural(chars.length, 'character') + '; ' + ends + ': ');
      const code = make('code', 'command-end');
      code.append(visible(chars.slice(-TAIL_CHARS).join(''), true));
      tail.append(code);
      node.append(label, box);
      footer.append(tail);
    }

    const countdown = make('p', 'countdown');
    const receipt = make('p', 'receipt');
    receipt.setAttribute('role', 'status');

    const actions = make('div', 'actions');
    const refuse = make('button', 'refuse');
    refuse.type = 'button';
    refuse.textContent = 'Refuse';
    // The visible label is the accessible name; the card's title says which request.
    refuse.setAttribute('aria-describedby', title.id);
    const allow = make('button', 'allow');
    allow.type = 'button';
    allow.textContent = 'Allow once';
    allow.setAttribute('aria-describedby', title.id);
    actions.append(refuse, allow);
    footer.append(countdown, receipt, actions);
    node.append(footer);

    const entry = {
      frame, node, countdown, receipt, buttons: [refuse, allow],
      busy: false, sending: null, accepted: null, expired: false,
    };
    refuse.addEventListener('click', () => answer(entry, 'rejected'));
    allow.addEventListener('click', () => answer(entry, 'allowed-once'));
    return entry;
  }

  // The latch: the first click disables both buttons before anything else runs, so a double
  // click sends one answer. A transport failure or a refused receipt re-arms them; only the
  // resolved frame removes the card.
  async function answer(entry, outcome) {
    if (entry.busy || entry.accepted !== null) return;
    entry.busy = true;
    setButtons(entry);
    entry.receipt.textContent = 'Sending';
    entry.receipt.className = 'receipt';
    try {
      let assertion = null;
      if (outcome === 'allowed-once' && state.approvers > 0) {
        entry.receipt.textContent = 'Touch your security key';
        assertion = await assert(entry.frame.challenge);
      }
      const frame = entry.frame;
      entry.sending = outcome;
      const sent = await api('/api/respond', {
        response: {
          approval_id: frame.approval_id,
          outcome,
          rpc_id: frame.rpc_id,
          session_id: frame.session_id,
        },
        assertion,
      });
      if (!sent.ok) throw new Error('the server answered ' + sent.status);
      const receipt = await sent.json();
      if (receipt.accepted === true) {
        entry.accepted = outcome;
        entry.receipt.textContent = (OUTCOMES[outcome] || outcome) + ': sent, waiting for the server';
        return;
      }
      const reason = String(receipt.reason);
      rearm(entry, 'Not accepted: ' + (REFUSALS[reason] || reason));
    } catch (error) {
      rearm(entry, 'Not sent (' + (error && error.message ? error.message : error) + '): try again');
    }
  }

  function rearm(entry, message) {
    entry.busy = false;
    entry.sending = null;
    setButtons(entry);
    entry.receipt.textContent = message;
    entry.receipt.className = 'receipt refused';
  }

  function setButtons(entry) {
    const off = entry.busy || entry.accepted !== null || entry.expired;
    for (const button of entry.buttons) button.disabled = off;
  }

  function tick() {
    for (const entry of state.cards.values()) updateCountdown(entry);
  }

  function updateCountdown(entry) {
    const left = Number(entry.frame.deadline_ms) - (Date.now() + state.clockOffsetMs);
    if (left <= 0) {
      entry.countdown.textContent = 'The deadline passed: the agent no longer waits';
      if (!entry.expired) {
        entry.expired = true;
        entry.node.classList.add('expired');
        setButtons(entry);
      }
      return;
    }
    const seconds = Math.ceil(left / 1000);
    const minutes = Math.floor(seconds / 60);
    entry.countdown.textContent = 'Answer within ' +
      (minutes > 0 ? minutes + ' min ' : '') + (seconds % 60) + ' s';
  }

  function renderEmpty() {
    el('empty').hidden = !state.token || state.cards.size > 0;
  }

  function log(entry, note) {
    const item = document.createElement('li');
    const frame = entry.frame;
    item.textContent = new Date().toLocaleTimeString() + ' #' + frame.rpc_id + ' ' +
      String(frame.tool) + ': ' + note;
    const list = el('log');
    list.insertBefore(item, list.firstChild);
    while (list.children.length > 50) list.lastChild.remove();
  }

  // ---- WebAuthn --------------------------------------------------------------------------

  // A security key's credentials are not discoverable (enrolled with `residentKey:
  // 'discouraged'`): the key finds its own only when its id is in `allowCredentials`.
  async function assert(challenge) {
    if (!window.PublicKeyCredential) throw new Error('this browser has no WebAuthn');
    const publicKey = {
      challenge: fromBase64url(challenge),
      // The page's own host: `localhost` on the loopback panel, the first --trusted-host over
      // TLS (the host of the address `seal serve` prints), the relying party id the server
      // and the hooks check.
      rpId: location.hostname,
      userVerification: 'required',
      timeout: 60000,
    };
    if (state.credentials.length > 0) {
      publicKey.allowCredentials = state.credentials.map((id) => ({
        type: 'public-key', id: fromBase64url(id),
      }));
    }
    const credential = await navigator.credentials.get({ publicKey });
    if (!credential) throw new Error('no credential');
    return {
      credential_id: toBase64url(credential.rawId),
      client_data_json: toBase64url(credential.response.clientDataJSON),
      authenticator_data: toBase64url(credential.response.authenticatorData),
      signature: toBase64url(credential.response.signature),
    };
  }

  async function enrol() {
    const button = el('enrol');
    const note = el('keys-note');
    button.disabled = true;
    note.textContent = 'Enrolling';
    try {
      if (!window.PublicKeyCredential) throw new Error('this browser has no WebAuthn');
      const started = await api('/api/approvers/enrol', {});
      if (!started.ok) throw new Error('the server answered ' + started.status);
      const options = await started.json();
      let assertion = null;
      if (state.approvers > 0) {
        // Only an enrolled approver may enrol another key.
        note.textContent = 'Touch an enrolled security key';
        assertion = await assert(options.challenge);
      }
      note.textContent = 'Touch the new security key';
      const credential = await navigator.credentials.create({
        publicKey: {
          rp: { id: options.rp_id, name: 'seal' },
          user: { id: fromBase64url(options.user_id), name: 'approver', displayName: 'approver' },
          challenge: fromBase64url(options.challenge),
          pubKeyCredParams: [{ type: 'public-key', alg: -7 }, { type: 'public-key', alg: -8 }],
          authenticatorSelection: { userVerification: 'required', residentKey: 'discouraged' },
          attestation: 'none',
          excludeCredentials: (options.exclude || []).map((id) => ({
            type: 'public-key', id: fromBase64url(id),
          })),
          timeout: 60000,
        },
      });
      if (!credential) throw new Error('no credential');
      const finished = await api('/api/approvers/enrol/finish', {
        name: el('key-name').value,
        client_data_json: toBase64url(credential.response.clientDataJSON),
        attestation_object: toBase64url(credential.response.attestationObject),
        secret: state.enrolSecret,
        assertion,
      });
      const answer = await finished.json().catch(() => ({}));
      if (!finished.ok || answer.approver === undefined) {
        const why = answer.refused || answer.reason;
        throw new Error(why ? 'refused: ' + why : 'the server answered ' + finished.status);
      }
      state.enrolSecret = null;
      state.approvers += 1;
      state.credentials.push(toBase64url(credential.rawId));
      renderKeys();
      note.textContent = 'Enrolled: approver ' + answer.approver;
    } catch (error) {
      note.textContent = 'Not enrolled (' + (error && error.message ? error.message : error) + ')';
    } finally {
      button.disabled = false;
    }
  }

  function renderKeys() {
    el('keys-count').textContent = state.approvers === 0
      ? 'No security key is enrolled: any answer with the pairing token is accepted.'
      : plural(state.approvers, 'security key') + ' enrolled: Allow once asks for one.';
  }

  function fromBase64url(text) {
    const base64 = String(text).replace(/-/g, '+').replace(/_/g, '/');
    const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  function toBase64url(buffer) {
    const bytes = new Uint8Array(buffer);
    let binary = '';
    for (let i = 0; i < bytes.length; i += 1) binary += String.fromCharCode(bytes[i]);
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  // ---- Text ------------------------------------------------------------------------------

  // Control, bidirectional and invisible characters become visible `\u{..}` marks, so the
  // text on screen is the text that runs. Newlines stay line breaks unless `oneLine`.
  const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/u;

  function visible(text, oneLine) {
    const fragment = document.createDocumentFragment();
    let run = '';
    for (const ch of text) {
      const special = HIDDEN.test(ch) || (oneLine && (ch === '\n' || ch === '\t'));
      if (!special) {
        run += ch;
        continue;
      }
      if (run !== '') fragment.append(run);
      run = '';
      const mark = make('span', 'escape');
      mark.textContent = ch === '\n' ? '\\n' : ch === '\t' ? '\\t'
        : '\\u{' + ch.codePointAt(0).toString(16) + '}';
      fragment.append(mark);
    }
    if (run !== '') fragment.append(run);
    return fragment;
  }

  function plural(count, noun) {
    return count + ' ' + noun + (count === 1 ? '' : 's');
  }

  function make(tag, className) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    return node;
  }

  function setStatus(text) {
    el('status').textContent = text;
  }

  function showProblem(text) {
    const problem = el('problem');
    problem.textContent = text;
    problem.hidden = false;
  }

  function sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}());
