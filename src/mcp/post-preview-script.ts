/**
 * The post preview page's script, as text: the apps' postMessage protocol (JSON-RPC 2.0 with the host:
 * `ui/initialize`, then `ui/notifications/initialized`; the host's tool-input, tool-result and
 * host-context-changed notifications; `tools/call` for the buttons; size-changed as the page grows) and
 * the rendering of the preview that the server computed (post-preview.ts): the page counts nothing.
 * Every value from the server is written with textContent, never as HTML.
 *
 * Written without template literals: it is itself one (String.raw, so its backslashes stay as written).
 */
export const POST_PREVIEW_SCRIPT = String.raw`
(function () {
  'use strict';
  var KEY = 'social-publisher/post-preview';
  var nextId = 1;
  var pending = {};
  var preview = null;
  var busy = false;

  function post(message) { window.parent.postMessage(message, '*'); }
  function request(method, params) {
    var id = nextId++;
    post({ jsonrpc: '2.0', id: id, method: method, params: params });
    return new Promise(function (resolve, reject) { pending[id] = { resolve: resolve, reject: reject }; });
  }
  function notify(method, params) { post({ jsonrpc: '2.0', method: method, params: params || {} }); }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (name === 'text') node.textContent = attrs.text;
      else if (name === 'className') node.className = attrs.className;
      else if (name === 'onclick') node.addEventListener('click', attrs.onclick);
      else node.setAttribute(name, attrs[name]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  function applyContext(context) {
    if (!context) return;
    var root = document.documentElement;
    if (context.theme) { root.dataset.theme = context.theme; root.style.colorScheme = context.theme; }
    var styles = context.styles || {};
    var variables = styles.variables || {};
    Object.keys(variables).forEach(function (name) {
      if (variables[name]) root.style.setProperty(name, variables[name]);
    });
    if (styles.css && styles.css.fonts && !document.getElementById('host-fonts')) {
      document.head.appendChild(el('style', { id: 'host-fonts', text: styles.css.fonts }));
    }
  }

  var OUTCOME = { fail: 'will fail', skip: 'skipped', change: 'changed', send: 'will send' };
  var POLL_AS = {
    native: 'sent as the platform\u2019s own poll',
    text: 'written into the text (the platform has no polls)',
    dropped: 'not sent: the platform has no polls'
  };

  function channelCard(channel, index) {
    var headingId = 'channel-' + index;
    var card = el('section', { className: 'channel', 'aria-labelledby': headingId, 'data-type': channel.type });
    card.appendChild(el('h2', { id: headingId }, [
      el('span', { text: channel.name }),
      el('span', { className: 'muted', text: channel.type + ' \u00b7 ' + channel.connector }),
      el('span', { className: 'badge ' + channel.action, text: OUTCOME[channel.action] })
    ]));
    if (channel.reason) card.appendChild(el('p', { className: 'detail', text: channel.reason }));
    if (channel.action === 'skip' || (channel.action === 'fail' && channel.reason)) {
      appendWarnings(card, channel.warnings);
      return card;
    }
    if (channel.format === 'story') card.appendChild(el('p', { className: 'detail', text: 'Posted as a Story' }));
    if (channel.title) card.appendChild(el('p', { className: 'detail' }, [el('strong', { text: channel.title })]));
    var text = el('p', { className: 'text' });
    text.appendChild(document.createTextNode(channel.text.slice(0, channel.fits)));
    if (channel.fits < channel.text.length) {
      text.appendChild(el('mark', { title: 'Beyond the limit of ' + channel.type, text: channel.text.slice(channel.fits) }));
    }
    card.appendChild(text);
    var over = channel.length > channel.limit;
    var count = channel.length + ' / ' + channel.limit + ' ' + channel.unit;
    if (channel.bytes) count += '; ' + channel.bytes.count + ' / ' + channel.bytes.limit + ' bytes';
    card.appendChild(el('p', { className: 'count' + (over || (channel.bytes && channel.bytes.count > channel.bytes.limit) ? ' over' : ''), text: count }));
    if (channel.media.length) {
      var list = el('ul', { className: 'media', 'aria-label': channel.media.length + ' media, ' + channel.type + ' takes up to ' + channel.maxMedia });
      channel.media.forEach(function (media, i) {
        var caption = (i + 1) + '. ' + media.label + (media.beyondLimit ? ' (over the limit)' : '');
        var thumbnail = preview.thumbnails && preview.thumbnails[i];
        list.appendChild(el('li', { className: media.beyondLimit ? 'over' : '' }, [
          thumbnail ? el('img', { src: thumbnail, alt: preview.alt || media.label }) : null,
          el('span', { text: thumbnail ? (i + 1) + (media.beyondLimit ? ' (over the limit)' : '') : caption })
        ]));
      });
      card.appendChild(list);
    }
    if (channel.poll) {
      var options = el('ol');
      channel.poll.options.forEach(function (option) { options.appendChild(el('li', { text: option })); });
      card.appendChild(el('div', { className: 'poll' }, [
        el('strong', { text: 'Poll: ' + channel.poll.question }), options,
        el('p', { className: 'count', text: 'Open ' + channel.poll.period + '; ' + POLL_AS[channel.poll.as] })
      ]));
    }
    if (channel.link) card.appendChild(el('p', { className: 'detail' }, [document.createTextNode('Link: '), el('code', { text: channel.link })]));
    if (channel.comment) {
      card.appendChild(el('p', { className: 'detail', text: channel.comment.posted
        ? 'Comment after ' + channel.comment.delaySeconds + ' s: ' + channel.comment.text
        : 'Comment not posted (no comments on ' + channel.type + '): ' + channel.comment.text }));
    }
    appendWarnings(card, channel.warnings);
    return card;
  }

  function appendWarnings(card, warnings) {
    if (!warnings || !warnings.length) return;
    var list = el('ul', { className: 'warnings', 'aria-label': 'Before publishing' });
    warnings.forEach(function (warning) {
      list.appendChild(el('li', { className: warning.outcome, text: OUTCOME[warning.outcome] + ': ' + warning.message }));
    });
    card.appendChild(list);
  }

  function localInput(scheduledAt) { return scheduledAt ? scheduledAt.replace(' ', 'T') : ''; }
  function wallClock(value) { var text = value.replace('T', ' '); return text.length === 16 ? text + ':00' : text; }

  function setStatus(text, error) {
    var status = document.getElementById('status');
    if (!status) return;
    status.textContent = text;
    status.className = error ? 'error' : '';
    status.setAttribute('role', error ? 'alert' : 'status');
  }

  function callTool(action, extra) {
    if (busy) return;
    busy = true;
    // Disabling the pressed button drops its focus: it gets it back once the answer is shown.
    var pressed = document.activeElement && document.activeElement.id;
    var refocus = function () { var again = pressed && document.getElementById(pressed); if (again) again.focus(); };
    var buttons = document.querySelectorAll('.bar button');
    buttons.forEach(function (button) { button.disabled = true; });
    setStatus('Asking the host to call ' + action.name + '\u2026');
    var args = Object.assign({}, action.arguments, extra || {});
    request('tools/call', { name: action.name, arguments: args }).then(function (result) {
      var text = (result.content || []).filter(function (b) { return b.type === 'text'; }).map(function (b) { return b.text; }).join('\n');
      busy = false;
      var next = result._meta && result._meta[KEY];
      if (next && !result.isError) render(next);
      else buttons.forEach(function (button) { button.disabled = false; });
      setStatus(text || (result.isError ? 'The call failed.' : 'Done.'), result.isError);
      refocus();
    }, function (error) {
      busy = false;
      buttons.forEach(function (button) { button.disabled = false; });
      setStatus('The host did not make the call: ' + error.message, true);
      refocus();
    });
  }

  function actionBar(data) {
    var actions = data.actions;
    if (!actions) return null;
    var when = el('input', { id: 'when', type: 'datetime-local', step: '1', value: localInput(data.time && data.time.scheduledAt) });
    var planned = data.status === 'scheduled' || data.status === 'queued';
    return el('div', { className: 'bar', role: 'group', 'aria-label': 'Publish' }, [
      el('button', { id: 'publish-now', className: 'primary', type: 'button', text: 'Publish now', onclick: function () { callTool(actions.publishNow); } }),
      el('label', {}, [document.createTextNode('Time (' + data.timezone + ')'), when]),
      el('button', { id: 'schedule', type: 'button', text: planned ? 'Change time' : 'Schedule', onclick: function () {
        if (!when.value) { setStatus('Choose a time first.', true); when.focus(); return; }
        callTool(actions.schedule, { scheduledAt: wallClock(when.value) });
      } }),
      el('button', { id: 'save-draft', type: 'button', text: 'Save as draft', onclick: function () { callTool(actions.saveDraft); } })
    ]);
  }

  function render(data) {
    preview = data;
    var app = document.getElementById('app');
    app.textContent = '';
    var title = data.postId === null ? 'Preview: nothing stored yet' : 'Post ' + data.postId + ' \u00b7 ' + data.status.replace('_', ' ');
    app.appendChild(el('h1', { text: title }));
    var times = el('p', { className: 'times' });
    if (data.time) {
      times.appendChild(el('time', { datetime: data.time.utc, text: data.time.local }));
      times.appendChild(document.createTextNode(' \u00b7 ' + data.time.utc.replace('.000Z', 'Z') + ' UTC'));
    } else {
      times.textContent = data.publishMode === 'IMMEDIATE' ? 'Goes out now' : 'No time set';
    }
    app.appendChild(times);
    var bar = actionBar(data);
    if (bar) app.appendChild(bar);
    app.appendChild(el('p', { id: 'status', role: 'status' }));
    var channels = el('div', { className: 'channels' });
    data.channels.forEach(function (channel, index) { channels.appendChild(channelCard(channel, index)); });
    app.appendChild(channels);
  }

  function showResult(result) {
    var data = result && result._meta && result._meta[KEY];
    if (data) { render(data); return; }
    var text = ((result && result.content) || []).filter(function (b) { return b.type === 'text'; }).map(function (b) { return b.text; }).join('\n');
    var app = document.getElementById('app');
    app.textContent = '';
    app.appendChild(el('p', { className: result && result.isError ? 'detail' : 'muted', role: 'status', text: text || 'Nothing to preview.' }));
  }

  var handlers = {
    'ui/notifications/tool-result': showResult,
    'ui/notifications/host-context-changed': applyContext,
    'ui/notifications/tool-cancelled': function () { if (!preview) showResult({ content: [{ type: 'text', text: 'The call was cancelled.' }] }); }
  };

  window.addEventListener('message', function (event) {
    if (event.source !== window.parent) return;
    var message = event.data;
    if (!message || message.jsonrpc !== '2.0') return;
    if (message.method === undefined) {
      var waiting = pending[message.id];
      if (!waiting) return;
      delete pending[message.id];
      if (message.error) waiting.reject(new Error(message.error.message || 'error'));
      else waiting.resolve(message.result || {});
      return;
    }
    if (message.id !== undefined) {
      var known = message.method === 'ui/resource-teardown' || message.method === 'ping';
      post(known ? { jsonrpc: '2.0', id: message.id, result: {} }
        : { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found: ' + message.method } });
      return;
    }
    if (handlers[message.method]) handlers[message.method](message.params || {});
  });

  var lastSize = '';
  function reportSize() {
    var width = Math.ceil(document.documentElement.scrollWidth);
    var height = Math.ceil(document.documentElement.scrollHeight);
    if (width + 'x' + height === lastSize) return;
    lastSize = width + 'x' + height;
    notify('ui/notifications/size-changed', { width: width, height: height });
  }

  request('ui/initialize', {
    appInfo: { name: 'social-publisher-post-preview', version: '1.0.0' },
    appCapabilities: { availableDisplayModes: ['inline'] },
    protocolVersion: '2026-01-26'
  }).then(function (result) {
    applyContext(result.hostContext);
    notify('ui/notifications/initialized');
    if (typeof ResizeObserver === 'function') new ResizeObserver(reportSize).observe(document.documentElement);
    reportSize();
  }, function (error) {
    document.getElementById('app').textContent = 'The host did not start the preview: ' + error.message;
  });
})();
`;
