/**
 * The part of the apps' postMessage protocol (JSON-RPC 2.0 with the host, spec 2026-01-26) that every
 * page of this server speaks, as script text to put inside a page's own function: `request` and
 * `notify`; `el`, which writes every value as text; the host's theme (`applyContext`); the answers to the
 * host's requests (`ui/resource-teardown`, `ping`); size-changed as the page grows; and `startApp`, which
 * sends `ui/initialize`, then `ui/notifications/initialized`, and passes the host's notifications to the
 * page's handlers. Messages are taken only from the parent window.
 *
 * Written without template literals: it is itself one (String.raw, so its backslashes stay as written).
 */
export const APP_PROTOCOL_SCRIPT = String.raw`
  var nextId = 1;
  var pending = {};

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

  function textOf(result) {
    return ((result && result.content) || []).filter(function (b) { return b.type === 'text'; })
      .map(function (b) { return b.text; }).join('\n');
  }

  function setStatus(text, error) {
    var status = document.getElementById('status');
    if (!status) return;
    status.textContent = text;
    status.className = error ? 'error' : '';
    status.setAttribute('role', error ? 'alert' : 'status');
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

  var lastSize = '';
  function reportSize() {
    var width = Math.ceil(document.documentElement.scrollWidth);
    var height = Math.ceil(document.documentElement.scrollHeight);
    if (width + 'x' + height === lastSize) return;
    lastSize = width + 'x' + height;
    notify('ui/notifications/size-changed', { width: width, height: height });
  }

  function startApp(name, handlers, failure) {
    handlers['ui/notifications/host-context-changed'] = applyContext;
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
    request('ui/initialize', {
      appInfo: { name: name, version: '1.0.0' },
      appCapabilities: { availableDisplayModes: ['inline'] },
      protocolVersion: '2026-01-26'
    }).then(function (result) {
      applyContext(result.hostContext);
      notify('ui/notifications/initialized');
      if (typeof ResizeObserver === 'function') new ResizeObserver(reportSize).observe(document.documentElement);
      reportSize();
    }, function (error) {
      document.getElementById('app').textContent = failure + error.message;
    });
  }
`;
