// The deferlock dashboard page. Every value from the server is attacker-controlled text (queue names, job ids,
// payloads, error messages): it reaches the page only through textContent, value or attributes set from code,
// never through innerHTML.
(function () {
  'use strict';

  const state = {
    session: null, // {actions, auth, csrf, user, refreshMs}
    credentials: null, // the Authorization header value, kept in memory only
    user: null,
    queue: null, // the selected queue
    deadOffset: 0,
    deadLimit: 20,
    deadTotal: 0,
    selected: new Set(), // selected dead letter ids of the selected queue
    job: null, // {queue, id} shown in the job panel
    lockPrefix: null,
    conflicts: {prefix: 'lock:', minutes: 5},
    charts: null,
  };

  const $ = (id) => document.getElementById(id);

  // The last data each table was drawn from: a refresh that brings the same data leaves the table alone,
  // so rows do not flicker and a row being clicked stays the same element.
  const drawn = {};

  function unchanged(table, data) {
    const text = JSON.stringify(data) + '|' + canAct();
    if (drawn[table] === text) return true;
    drawn[table] = text;
    return false;
  }

  function el(tag, text, className) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (className) e.className = className;
    return e;
  }

  function showError(message) {
    $('error').textContent = message || '';
  }

  function formatAge(ms) {
    if (ms === null || ms === undefined) return '';
    if (ms < 1000) return ms + ' ms';
    const s = ms / 1000;
    if (s < 120) return s.toFixed(1) + ' s';
    const m = s / 60;
    if (m < 120) return m.toFixed(1) + ' min';
    return (m / 60).toFixed(1) + ' h';
  }

  function formatTime(ms) {
    return ms === null || ms === undefined ? '' : new Date(ms).toISOString();
  }

  function formatRate(r) {
    return r === null || r === undefined ? '' : r.toFixed(1);
  }

  async function getJson(path) {
    const response = await fetch(path, {headers: {'Accept': 'application/json'}, cache: 'no-store'});
    const body = await response.json().catch(() => ({}));
    if (response.status === 404 && body.notFound) return null;
    if (!response.ok) throw new Error(body.error || ('HTTP ' + response.status + ' for ' + path));
    return body;
  }

  async function post(path, payload) {
    const headers = {'Content-Type': 'application/json', 'Accept': 'application/json',
      'X-CSRF-Token': state.session.csrf};
    if (state.credentials) headers['Authorization'] = state.credentials;
    const response = await fetch(path, {method: 'POST', headers: headers, body: JSON.stringify(payload)});
    return {response: response, body: await response.json().catch(() => ({}))};
  }

  async function act(path, payload) {
    let {response, body} = await post(path, payload);
    if (response.status === 403 && /CSRF/.test(body.error || '')) {
      // the server's session expired (and with it the CSRF token): take the new session's token, try once more
      state.session = await getJson('api/session');
      ({response, body} = await post(path, payload));
    }
    if (!response.ok) {
      const error = new Error(body.error || ('HTTP ' + response.status));
      error.status = response.status;
      error.body = body;
      throw error;
    }
    return body;
  }

  function query(params) {
    return Object.keys(params).map((k) => encodeURIComponent(k) + '=' + encodeURIComponent(params[k])).join('&');
  }

  // ---- session and sign-in ----

  function canAct() {
    return state.session && state.session.actions && state.user !== null;
  }

  function renderMode() {
    const s = state.session;
    $('mode').textContent = s.actions ? (canAct() ? 'actions enabled' : 'read-only until signed in') : 'read-only';
    $('signin').hidden = !s.actions || state.user !== null;
    $('signin-user').hidden = s.auth !== 'basic';
    $('signin-secret').placeholder = s.auth === 'basic' ? 'password' : 'token';
    $('signed-in').hidden = state.user === null;
    $('signed-in-user').textContent = state.user || '';
    for (const e of document.querySelectorAll('[data-action]')) e.hidden = !canAct();
    $('job-actions').hidden = !canAct() || !state.jobShown;
  }

  async function signIn(event) {
    event.preventDefault();
    const secret = $('signin-secret').value;
    const header = state.session.auth === 'basic'
      ? 'Basic ' + btoa(unescape(encodeURIComponent($('signin-user').value + ':' + secret)))
      : 'Bearer ' + secret;
    const response = await fetch('api/session', {headers: {'Authorization': header}, cache: 'no-store'});
    const body = await response.json().catch(() => ({}));
    if (!response.ok || !body.user) {
      showError(body.error || 'sign-in refused');
      return;
    }
    state.credentials = header;
    state.user = body.user;
    state.session = body;
    $('signin-secret').value = '';
    showError('');
    renderMode();
    refresh();
  }

  function signOut() {
    state.credentials = null;
    state.user = null;
    renderMode();
    refresh();
  }

  // ---- queues ----

  function renderQueues(data) {
    if (state.queue === null && data.queues.length > 0) selectQueue(data.queues[0].name);
    if (unchanged('queues', [data.queues, data.lockPrefixes, state.queue])) return;
    const body = $('queues').tBodies[0];
    body.replaceChildren();
    for (const q of data.queues) {
      const row = el('tr');
      row.dataset.queue = q.name;
      if (q.name === state.queue) row.className = 'selected';
      const name = el('td');
      const link = el('a', q.name, 'name');
      link.href = '#';
      link.addEventListener('click', (e) => {
        e.preventDefault();
        selectQueue(q.name);
      });
      name.appendChild(link);
      if (q.rateLimit) {
        const limit = el('span', ' ≤ ' + q.rateLimit.rate + ' per ' + formatAge(q.rateLimit.intervalMs), 'rate-limit');
        limit.title = 'rate limit: ' + q.rateLimit.text + ' (deferlock queue rate-limit)';
        name.appendChild(limit);
      }
      row.appendChild(name);
      const stateCell = el('td', q.paused ? 'paused' : 'running', 'queue-state');
      if (q.paused) {
        stateCell.title = 'paused since ' + formatTime(q.pausedSince);
        stateCell.classList.add('paused');
      }
      row.appendChild(stateCell);
      row.appendChild(el('td', q.due, 'num due'));
      row.appendChild(heldCell(q));
      row.appendChild(el('td', q.scheduled, 'num scheduled'));
      row.appendChild(el('td', q.inFlight, 'num in-flight'));
      row.appendChild(el('td', q.dead, 'num dead'));
      row.appendChild(el('td', formatAge(q.oldestDueAgeMs), 'num oldest-due-age'));
      row.appendChild(el('td', formatRate(q.enqueuedPerSec), 'num enqueued-rate'));
      row.appendChild(el('td', formatRate(q.handledPerSec), 'num handled-rate'));
      const actions = el('td');
      actions.dataset.action = '';
      actions.hidden = !canAct();
      const toggle = el('button', q.paused ? 'Resume' : 'Pause', 'pause-toggle');
      toggle.type = 'button';
      toggle.addEventListener('click', () => pauseOrResume(q.name, q.paused ? 'resume' : 'pause'));
      actions.appendChild(toggle);
      row.appendChild(actions);
      body.appendChild(row);
    }
    $('queues-empty').hidden = data.queues.length > 0;
    const prefixes = $('lock-prefixes');
    prefixes.replaceChildren();
    for (const p of data.lockPrefixes) {
      const option = el('option');
      option.value = p;
      prefixes.appendChild(option);
    }
  }

  // The Held cell: how many due jobs wait for their concurrency key, and the keys most held (as of the
  // dashboard's last read, at most 10): key, held jobs, running of the limit.
  function heldCell(q) {
    const cell = el('td', null, 'num held-cell');
    cell.appendChild(el('span', q.held, 'held'));
    if (q.heldKeys.length === 0) return cell;
    const list = el('ul', null, 'held-keys');
    if (q.heldKeysAt !== null) list.title = 'concurrency keys at their limit, read ' + formatTime(q.heldKeysAt);
    for (const k of q.heldKeys) {
      const item = el('li');
      item.dataset.key = k.key;
      item.appendChild(el('span', k.key, 'held-key name'));
      item.appendChild(document.createTextNode(': '));
      item.appendChild(el('span', k.held, 'held-count'));
      item.appendChild(document.createTextNode(' held, '));
      item.appendChild(el('span', k.running, 'held-running'));
      item.appendChild(document.createTextNode(' of '));
      item.appendChild(el('span', k.limit === null ? 'no limit' : k.limit, 'held-limit'));
      item.appendChild(document.createTextNode(' running'));
      item.title = k.held + ' jobs of key ' + k.key + ' wait: ' + k.running + ' of its '
        + (k.limit === null ? 'unlimited' : 'limit of ' + k.limit) + ' are running';
      list.appendChild(item);
    }
    cell.appendChild(list);
    return cell;
  }

  async function pauseOrResume(queue, action) {
    try {
      const result = await act('api/actions/' + action, {queue: queue});
      showError(result.changed ? (action === 'pause' ? 'paused' : 'resumed') + ' queue ' + queue
        : 'queue ' + queue + (action === 'pause' ? ' was paused already' : ' was not paused'));
    } catch (e) {
      showError(action + ' refused: ' + e.message);
    }
    refresh();
  }

  function selectQueue(name) {
    if (state.queue !== name) {
      state.queue = name;
      state.deadOffset = 0;
      state.selected.clear();
    }
    for (const row of $('queues').tBodies[0].rows) {
      row.className = row.dataset.queue === name ? 'selected' : '';
    }
    $('chart-queue').textContent = name;
    $('dead-queue').textContent = name;
    $('schedules-queue').textContent = name;
    $('charts-section').hidden = false;
    $('schedules-section').hidden = false;
    $('dead-section').hidden = false;
    refreshQueueDetails().catch((e) => showError(e.message));
  }

  // ---- charts (uPlot) ----

  function chart(target, label, color) {
    const width = Math.max(240, Math.min(420, Math.floor((document.body.clientWidth - 80) / 3)));
    return new uPlot({
      width: width, height: 140, legend: {show: false}, cursor: {show: true},
      scales: {x: {time: true}},
      axes: [{size: 30}, {size: 56}],
      series: [{}, {label: label, stroke: color, width: 1.5, fill: color + '22'}],
    }, [[], []], $(target));
  }

  function renderHistory(data) {
    if (typeof uPlot === 'undefined') return;
    if (!state.charts) {
      state.charts = {
        enqueued: chart('chart-enqueued', 'enqueued/s', '#2f6fb0'),
        handled: chart('chart-handled', 'handled/s', '#2e8b57'),
        lateness: chart('chart-lateness', 'lateness s', '#c0392b'),
      };
    }
    const t = data.samples.map((s) => s.t / 1000);
    state.charts.enqueued.setData([t, data.samples.map((s) => s.enqueuedPerSec)]);
    state.charts.handled.setData([t, data.samples.map((s) => s.handledPerSec)]);
    state.charts.lateness.setData([t, data.samples.map((s) => s.latenessMs / 1000)]);
  }

  // ---- recurring schedules ----

  // The Next fire cell: the next slot, or, while a fixed-delay schedule waits for the job of its last fire,
  // "after <job id> + <delay>" (its next fire is the delay after that job ends).
  function nextFireText(s) {
    if (s.waitingFor !== null) {
      return 'after ' + s.waitingFor + (s.delayMs === null ? ' ends' : ' + ' + formatAge(s.delayMs));
    }
    return s.nextFire === null ? 'none' : formatTime(s.nextFire);
  }

  function renderSchedules(data) {
    if (unchanged('schedules', data)) return;
    const body = $('schedules').tBodies[0];
    body.replaceChildren();
    for (const s of data.schedules) {
      const row = el('tr');
      row.dataset.id = s.id;
      row.appendChild(el('td', s.id, 'schedule-id'));
      row.appendChild(el('td', s.spec, 'spec'));
      row.appendChild(el('td', s.missed, 'missed'));
      const next = el('td', nextFireText(s), s.waitingFor !== null ? 'next-fire waiting' : 'next-fire');
      if (s.waitingFor !== null) next.title = 'waits for job ' + s.waitingFor + ' to finish';
      row.appendChild(next);
      body.appendChild(row);
    }
    $('schedules-empty').hidden = data.schedules.length > 0;
  }

  // ---- dead letters ----

  function renderDead(data) {
    if (unchanged('dead', data)) return;
    state.deadTotal = data.total;
    $('dead-total').textContent = data.total;
    const present = new Set(data.items.map((d) => d.id));
    for (const id of Array.from(state.selected)) {
      if (!present.has(id)) state.selected.delete(id);
    }
    const body = $('dead').tBodies[0];
    body.replaceChildren();
    for (const d of data.items) {
      const row = el('tr');
      row.dataset.id = d.id;
      const pick = el('td');
      pick.dataset.action = '';
      pick.hidden = !canAct();
      const box = el('input');
      box.type = 'checkbox';
      box.className = 'pick';
      box.checked = state.selected.has(d.id);
      box.addEventListener('change', () => {
        if (box.checked) state.selected.add(d.id); else state.selected.delete(d.id);
        renderSelection();
      });
      pick.appendChild(box);
      row.appendChild(pick);
      const id = el('td');
      const link = el('a', d.id, 'job-id');
      link.href = '#';
      link.addEventListener('click', (e) => {
        e.preventDefault();
        showJob(state.queue, d.id);
      });
      id.appendChild(link);
      row.appendChild(id);
      row.appendChild(el('td', d.attempts, 'num attempts'));
      row.appendChild(el('td', formatTime(d.diedAt), 'died-at'));
      row.appendChild(el('td', d.error, 'error-text'));
      const payload = el('td', d.payload + (d.truncated ? ' … (' + d.payloadBytes + ' bytes)' : ''), 'payload');
      row.appendChild(payload);
      body.appendChild(row);
    }
    const from = data.total === 0 ? 0 : data.offset + 1;
    $('dead-page').textContent = from + '–' + (data.offset + data.items.length) + ' of ' + data.total;
    $('dead-prev').disabled = data.offset === 0;
    $('dead-next').disabled = data.offset + data.items.length >= data.total;
    renderSelection();
  }

  function renderSelection() {
    const n = state.selected.size;
    $('selected-count').textContent = n === 0 ? '' : n + ' selected';
    $('requeue-selected').disabled = n === 0;
    $('purge-selected').disabled = n === 0;
    $('requeue-all').disabled = state.deadTotal === 0;
    const boxes = document.querySelectorAll('#dead input.pick');
    $('dead-select-page').checked = boxes.length > 0 && Array.from(boxes).every((b) => b.checked);
  }

  async function onSelected(action) {
    const ids = Array.from(state.selected);
    if (ids.length === 0) return;
    try {
      const result = await act('api/actions/' + action, {queue: state.queue, ids: ids});
      state.selected.clear();
      showError(action + ': ' + result.done.length + ' done'
        + (result.missing.length ? ', ' + result.missing.length + ' no longer dead' : ''));
    } catch (e) {
      showError(action + ' refused: ' + e.message);
    }
    refresh();
  }

  function requeueAll() {
    const count = state.deadTotal;
    const queue = state.queue;
    $('confirm-text').textContent = 'Requeue all ' + count + ' dead letters of queue "' + queue + '"?';
    $('confirm-expected').textContent = String(count);
    $('confirm-input').value = '';
    $('confirm-ok').disabled = true;
    const dialog = $('confirm');
    dialog.onclose = async () => {
      if (dialog.returnValue !== 'ok' || $('confirm-input').value.trim() !== String(count)) return;
      try {
        const result = await act('api/actions/requeue-all', {queue: queue, count: count});
        showError('requeued ' + result.requeued + ' dead letters');
      } catch (e) {
        showError('requeue all refused: ' + e.message);
      }
      refresh();
    };
    dialog.showModal();
  }

  // ---- job ----

  function showJob(queue, id) {
    $('job-queue').value = queue;
    $('job-id').value = id;
    state.job = {queue: queue, id: id};
    refreshJob();
  }

  function renderJob(job) {
    if (unchanged('job', job)) return;
    const list = $('job');
    list.replaceChildren();
    state.jobShown = job !== null;
    $('job-missing').hidden = job !== null;
    list.hidden = job === null;
    if (job !== null) {
      const add = (term, value, className) => {
        list.appendChild(el('dt', term));
        list.appendChild(el('dd', value, className));
      };
      add('Id', job.id, 'job-id');
      add('Queue', job.queue, 'job-queue');
      add('State', job.state, 'job-state');
      add('Attempts', job.attempts, 'job-attempts');
      add('Priority', job.priority, 'job-priority');
      if (job.dueAt !== null) add('Due at', formatTime(job.dueAt), 'job-due');
      if (job.visibleUntil !== null) add('Visible until', formatTime(job.visibleUntil), 'job-visible');
      if (job.diedAt !== null) add('Died at', formatTime(job.diedAt), 'job-died');
      if (job.lastError !== null) add('Last error', job.lastError, 'job-error');
      if (job.progress) {
        const p = job.progress;
        add('Progress', p.percent + '%' + (p.note ? ' ' + p.note : '') + ' (attempt ' + p.attempt + ', '
          + formatTime(p.at) + ')', 'job-progress');
      }
      const headers = job.headers || {};
      for (const name of Object.keys(headers)) add('Header ' + name, headers[name], 'job-header');
      add('Payload' + (job.truncated ? ' (first part of ' + job.payloadBytes + ' bytes)' : ''), job.payload,
        'job-payload');
    }
    renderMode();
  }

  async function cancelJob() {
    if (!state.job) return;
    try {
      const result = await act('api/actions/cancel', {queue: state.job.queue, id: state.job.id});
      showError(result.cancelled ? 'job cancelled' : 'no such job');
    } catch (e) {
      showError('cancel refused: ' + e.message);
    }
    refresh();
  }

  // ---- locks ----

  function renderLocks(data) {
    if (unchanged('locks', data)) return;
    const body = $('locks').tBodies[0];
    body.replaceChildren();
    for (const l of data.locks) {
      const row = el('tr');
      row.appendChild(el('td', l.name, 'lock-name'));
      // a permits name has no single holder: how many of its permits are held (the CLI's 'lock permits' lists them)
      row.appendChild(el('td', l.permits ? l.permits.held + ' of ' + l.permits.limit + ' permits' : l.holderToken, 'lock-holder'));
      row.appendChild(el('td', formatAge(l.remainingLeaseMs), 'num lock-lease'));
      row.appendChild(el('td', l.fencingToken, 'num lock-fencing'));
      row.appendChild(el('td', l.waiting ? 'yes' : 'no', 'lock-waiting'));
      row.appendChild(el('td', String(l.parked), 'num lock-parked'));
      // '' when nothing is parked; 'unknown' when the oldest item records no park time
      const parkedAge = l.parked === 0 ? '' : (l.oldestParkedAgeMs === null ? 'unknown' : formatAge(l.oldestParkedAgeMs));
      row.appendChild(el('td', parkedAge, 'num lock-parked-age'));
      body.appendChild(row);
    }
    $('locks').hidden = !data.complete;
    $('locks-more').hidden = !data.more;
    // the server walks the keyspace in slices of its SCAN budget; a request only reads the last full walk
    $('locks-status').textContent = data.complete
      ? 'as of ' + new Date(data.scannedAt).toLocaleTimeString() + ' (a walk of ' + data.scanCalls + ' SCAN calls)'
      : 'Looking for locks under this prefix: the dashboard walks the keyspace a slice per refresh…';
  }

  // ---- conflicts ----

  function formatPerSecond(r) {
    return r === null || r === undefined ? '' : r.toFixed(2);
  }

  function renderConflicts(data) {
    if (unchanged('conflicts', data)) return;
    const body = $('conflicts').tBodies[0];
    body.replaceChildren();
    for (const c of data.locks) {
      const row = el('tr');
      row.appendChild(el('td', c.name, 'conflict-name'));
      const cell = (count, rate, cls) => {
        const td = el('td', formatPerSecond(rate), 'num ' + cls);
        td.title = count + ' conflicts';
        td.dataset.count = String(count);
        return td;
      };
      row.appendChild(cell(c.throw, c.throwPerSecond, 'conflict-throw'));
      row.appendChild(cell(c.sleepRetry, c.sleepRetryPerSecond, 'conflict-sleep-retry'));
      row.appendChild(cell(c.defer, c.deferPerSecond, 'conflict-defer'));
      row.appendChild(el('td', c.throw + c.sleepRetry + c.defer, 'num conflict-total'));
      row.appendChild(el('td', c.waiters, 'num conflict-waiters'));
      row.appendChild(el('td', c.parked, 'num conflict-parked'));
      row.appendChild(el('td', formatAge(c.oldestParkedAgeMs), 'num conflict-oldest'));
      row.appendChild(el('td', c.holderToken === null ? 'free' : c.holderToken, 'lock-holder conflict-holder'));
      row.appendChild(el('td', formatAge(c.remainingLeaseMs), 'num conflict-lease'));
      body.appendChild(row);
    }
    $('conflicts-status').textContent = data.locks.length === 0
      ? 'No conflict counted under this prefix in the last ' + data.minutes + ' min.'
      : 'Most contended first, over the last ' + formatAge(data.windowMs) + ' (since '
        + new Date(data.since).toLocaleTimeString() + '). Hover a rate for the count.';
  }

  async function refreshConflicts() {
    renderConflicts(await getJson('api/conflicts?' + query(state.conflicts)));
  }

  // ---- refresh ----

  async function refreshQueueDetails() {
    if (state.queue === null) return;
    const queue = state.queue;
    const [history, dead, schedules] = await Promise.all([
      getJson('api/history?' + query({queue: queue})),
      getJson('api/dead?' + query({queue: queue, offset: state.deadOffset, limit: state.deadLimit})),
      getJson('api/schedules?' + query({queue: queue})),
    ]);
    if (queue !== state.queue) return;
    if (dead.items.length === 0 && state.deadOffset > 0) {
      state.deadOffset = Math.max(0, Math.floor((dead.total - 1) / state.deadLimit) * state.deadLimit);
    }
    renderHistory(history);
    renderDead(dead);
    renderSchedules(schedules);
  }

  async function refreshJob() {
    if (!state.job) return;
    renderJob(await getJson('api/job?' + query(state.job)));
  }

  async function refreshLocks() {
    if (state.lockPrefix === null) return;
    renderLocks(await getJson('api/locks?' + query({prefix: state.lockPrefix})));
  }

  let refreshing = false;

  async function refresh() {
    if (refreshing) return;
    refreshing = true;
    try {
      renderQueues(await getJson('api/queues'));
      await Promise.all([refreshQueueDetails(), refreshJob(), refreshLocks(), refreshConflicts()]);
      $('refreshed').textContent = 'updated ' + new Date().toLocaleTimeString();
      document.body.dataset.refreshed = String(Date.now());
    } catch (e) {
      showError(e.message);
    } finally {
      refreshing = false;
    }
  }

  async function start() {
    state.session = await getJson('api/session');
    renderMode();
    $('signin').addEventListener('submit', signIn);
    $('signout').addEventListener('click', signOut);
    $('requeue-selected').addEventListener('click', () => onSelected('requeue'));
    $('purge-selected').addEventListener('click', () => onSelected('purge'));
    $('requeue-all').addEventListener('click', requeueAll);
    $('confirm-input').addEventListener('input', () => {
      $('confirm-ok').disabled = $('confirm-input').value.trim() !== $('confirm-expected').textContent;
    });
    $('dead-select-page').addEventListener('change', () => {
      for (const box of document.querySelectorAll('#dead input.pick')) {
        box.checked = $('dead-select-page').checked;
        const id = box.closest('tr').dataset.id;
        if (box.checked) state.selected.add(id); else state.selected.delete(id);
      }
      renderSelection();
    });
    $('dead-prev').addEventListener('click', () => {
      state.deadOffset = Math.max(0, state.deadOffset - state.deadLimit);
      refreshQueueDetails().catch((e) => showError(e.message));
    });
    $('dead-next').addEventListener('click', () => {
      state.deadOffset += state.deadLimit;
      refreshQueueDetails().catch((e) => showError(e.message));
    });
    $('job-form').addEventListener('submit', (e) => {
      e.preventDefault();
      showJob($('job-queue').value, $('job-id').value);
    });
    $('job-cancel').addEventListener('click', cancelJob);
    $('locks-form').addEventListener('submit', (e) => {
      e.preventDefault();
      state.lockPrefix = $('locks-prefix').value;
      refreshLocks().catch((err) => showError(err.message));
    });
    $('conflicts-form').addEventListener('submit', (e) => {
      e.preventDefault();
      state.conflicts = {prefix: $('conflicts-prefix').value, minutes: Number($('conflicts-minutes').value)};
      refreshConflicts().catch((err) => showError(err.message));
    });
    await refresh();
    setInterval(refresh, state.session.refreshMs || 2000);
  }

  document.addEventListener('DOMContentLoaded', () => start().catch((e) => showError(e.message)));
})();
