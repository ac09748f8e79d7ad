/**
 * The queue calendar page's script, as text: the apps' postMessage protocol (app-script.ts: the host's
 * tool-result notification; `tools/call` for moving a post, from its list or by dragging it onto a free
 * slot, and turning the week) and the drawing of the week that the server computed (queue-calendar.ts):
 * the page computes no time. Every value from the server is written with textContent, never as HTML.
 *
 * Dragging uses pointer events, so a mouse, a pen and a finger all drag (HTML5 drag and drop has no
 * touch in most mobile browsers). A mouse drags a card by any part but its controls; a finger or a pen
 * by its grip, the only part whose touch-action is none, so that a finger elsewhere on the card still
 * scrolls. Under 4px of movement is no drag; a drop off a free slot, Escape or a cancelled pointer moves
 * nothing. The targets are the free slots still to come, as in the Move list, and a drop makes the
 * Move button's call.
 *
 * Written without template literals: it is itself one (String.raw, so its backslashes stay as written).
 */
import { APP_PROTOCOL_SCRIPT } from './app-script.js';

export const QUEUE_CALENDAR_SCRIPT = String.raw`
(function () {
  'use strict';
  var KEY = 'social-publisher/queue-calendar';
${APP_PROTOCOL_SCRIPT}
  var calendar = null;
  var busy = false;

  function plural(count, word) { return count + ' ' + word + (count === 1 ? '' : 's'); }

  function controls() { return document.querySelectorAll('#app button, #app select'); }

  /** Calls a tool through the host; a result with a calendar redraws the page. */
  function callTool(action, extra, then) {
    if (busy) return;
    busy = true;
    var pressed = document.activeElement && document.activeElement.id;
    controls().forEach(function (control) { control.disabled = true; });
    setStatus('Asking the host to call ' + action.name + '\u2026');
    var args = Object.assign({}, action.arguments, extra || {});
    request('tools/call', { name: action.name, arguments: args }).then(function (result) {
      busy = false;
      var next = result._meta && result._meta[KEY];
      if (next && !result.isError) render(next);
      else controls().forEach(function (control) { control.disabled = false; });
      var text = textOf(result) || (result.isError ? 'The call failed.' : 'Done.');
      setStatus(text, result.isError);
      if (then && !result.isError) then(text);
      else refocus(pressed);
    }, function (error) {
      busy = false;
      controls().forEach(function (control) { control.disabled = false; });
      setStatus('The host did not make the call: ' + error.message, true);
      refocus(pressed);
    });
  }

  function refocus(id) {
    var again = id && document.getElementById(id);
    if (again) again.focus();
    else if (controls()[0]) controls()[0].focus();
  }

  /**
   * update_post to the slot, then this week again through list_posts; the focus ends on the post's
   * Move button, whether the post was moved from its list or dragged.
   */
  function moveTo(post, slot) {
    var button = document.getElementById('move-button-' + post.id);
    if (button) button.focus();
    callTool(calendar.actions.move, { postId: post.id, scheduledAt: slot }, function (moved) {
      callTool(calendar.actions.refresh, {}, function () {
        setStatus(moved);
        refocus('move-button-' + post.id);
      });
    });
  }

  function move(post, select) {
    if (!select.value) { setStatus('Choose a free slot first.', true); select.focus(); return; }
    moveTo(post, select.value);
  }

  /** The drag under way: its card, post, pointer, start, whether it has moved, the free slot under it. */
  var drag = null;

  function slotUnder(x, y) {
    var under = document.elementsFromPoint(x, y);
    for (var i = 0; i < under.length; i++) if (under[i].matches('.slot.gap')) return under[i];
    return null;
  }

  function endDrag() {
    var ended = drag;
    if (!ended) return null;
    drag = null;
    ended.card.classList.remove('lifted');
    ended.card.style.transform = '';
    if (ended.over) ended.over.classList.remove('over');
    document.getElementById('app').classList.remove('dragging');
    return ended;
  }

  function draggable(card, post) {
    card.addEventListener('pointerdown', function (event) {
      if (busy || event.button !== 0 || event.target.closest('select, button')) return;
      if (event.pointerType !== 'mouse' && !event.target.closest('.grip')) return;
      cancelDrag();
      // A selection pressed on would start the browser's own drag of its text, which cancels this one.
      window.getSelection().removeAllRanges();
      drag = { card: card, post: post, pointer: event.pointerId, x: event.clientX, y: event.clientY, moving: false, over: null };
      // Only so that a drag may leave the frame: the moves are heard on the document without it.
      card.setPointerCapture(event.pointerId);
    });
    card.addEventListener('dragstart', function (event) { event.preventDefault(); });
  }

  document.addEventListener('pointermove', function (event) {
    if (!drag || drag.pointer !== event.pointerId) return;
    var dx = event.clientX - drag.x;
    var dy = event.clientY - drag.y;
    if (!drag.moving) {
      if (Math.abs(dx) + Math.abs(dy) < 4) return;
      drag.moving = true;
      drag.card.classList.add('lifted');
      document.getElementById('app').classList.add('dragging');
      setStatus('Drop post ' + drag.post.id + ' on a free slot, or press Escape.');
    }
    drag.card.style.transform = 'translate(' + dx + 'px,' + dy + 'px)';
    var over = slotUnder(event.clientX, event.clientY);
    if (over === drag.over) return;
    if (drag.over) drag.over.classList.remove('over');
    if (over) over.classList.add('over');
    drag.over = over;
  });

  document.addEventListener('pointerup', function (event) {
    if (!drag || drag.pointer !== event.pointerId) return;
    var ended = endDrag();
    if (!ended.moving) return;
    var slot = slotUnder(event.clientX, event.clientY);
    if (slot) moveTo(ended.post, slot.getAttribute('data-slot'));
    else setStatus('Not moved: drop the post on a free slot.');
  });

  function cancelDrag() {
    var ended = endDrag();
    if (ended && ended.moving) setStatus('Not moved.');
  }

  document.addEventListener('pointercancel', function (event) { if (drag && drag.pointer === event.pointerId) cancelDrag(); });
  document.addEventListener('keydown', function (event) { if (event.key === 'Escape') cancelDrag(); });
  document.addEventListener('selectstart', function (event) { if (drag) event.preventDefault(); });

  function freeSlots() {
    return calendar.slots.filter(function (slot) { return slot.free && !slot.past; });
  }

  function postCard(post) {
    var slots = freeSlots();
    var movable = post.movable && slots.length > 0;
    var card = el('article', { className: 'post ' + post.status + (movable ? ' movable' : ''), 'data-post-id': String(post.id),
      'aria-label': 'Post ' + post.id + ' at ' + post.time + ', ' + post.status });
    card.appendChild(el('p', { className: 'head' }, [
      movable ? el('span', { className: 'grip', 'aria-hidden': 'true', title: 'Drag to a free slot' }) : null,
      el('time', { datetime: post.utc, text: post.time }),
      el('span', { className: 'badge', text: post.status.replace('_', ' ') })
    ]));
    card.appendChild(el('p', { className: 'caption', text: '#' + post.id + ' ' + post.caption }));
    var channels = el('ul', { className: 'chips', 'aria-label': 'Channels' });
    post.channels.forEach(function (channel) {
      channels.appendChild(el('li', { title: channel.name, text: channel.type }));
    });
    if (!post.channels.length) channels.appendChild(el('li', { text: 'no channel' }));
    card.appendChild(channels);
    if (movable) {
      var select = el('select', { id: 'move-' + post.id, 'aria-label': 'Move post ' + post.id + ' to a free slot' },
        [el('option', { value: '', text: 'Move to\u2026' })]);
      slots.forEach(function (slot) {
        select.appendChild(el('option', { value: slot.scheduledAt,
          text: calendar.days[slot.day].label + ' ' + slot.time }));
      });
      card.appendChild(el('div', { className: 'move' }, [select,
        el('button', { id: 'move-button-' + post.id, type: 'button', text: 'Move',
          onclick: function () { move(post, select); } })]));
      draggable(card, post);
    }
    return card;
  }

  function cell(day, hour) {
    var td = el('td', { 'data-day': String(day), 'data-hour': String(hour) });
    var inHour = function (item) { return item.day === day && Number(item.time.slice(0, 2)) === hour; };
    var items = [];
    calendar.slots.filter(inHour).forEach(function (slot) {
      if (!slot.free) return;
      items.push({ time: slot.time, node: el('p', { className: 'slot' + (slot.past ? ' past' : ' gap'),
        'data-slot': slot.scheduledAt, text: slot.time + (slot.past ? ' (gone by)' : ' free slot') }) });
    });
    calendar.posts.filter(inHour).forEach(function (post) { items.push({ time: post.time, node: postCard(post) }); });
    items.sort(function (a, b) { return a.time < b.time ? -1 : a.time > b.time ? 1 : 0; });
    items.forEach(function (item) { td.appendChild(item.node); });
    return td;
  }

  function render(data) {
    endDrag();
    calendar = data;
    var app = document.getElementById('app');
    app.textContent = '';
    app.appendChild(el('h1', { text: data.week.label }));
    var gaps = data.slots.filter(function (slot) { return slot.free && !slot.past; }).length;
    app.appendChild(el('p', { className: 'muted', text: 'Times in ' + data.timezone + ' \u00b7 now ' + data.localNow.slice(0, 16) +
      ' \u00b7 queue times ' + data.queueTimes.join(', ') + ' \u00b7 ' + plural(data.posts.length, 'post') + ', ' +
      plural(gaps, 'free slot') + (data.more ? ' \u00b7 ' + data.more + ' more not shown' : '') }));
    app.appendChild(el('div', { className: 'bar', role: 'group', 'aria-label': 'Week' }, [
      el('button', { id: 'previous-week', type: 'button', text: '\u2190 Previous week', onclick: function () { callTool(data.actions.previous); } }),
      el('button', { id: 'next-week', type: 'button', text: 'Next week \u2192', onclick: function () { callTool(data.actions.next); } })
    ]));
    app.appendChild(el('p', { id: 'status', role: 'status' }));
    if (data.channels.length) {
      var legend = el('ul', { className: 'chips legend', 'aria-label': 'Posts per channel this week' });
      data.channels.forEach(function (channel) {
        legend.appendChild(el('li', { 'data-channel': channel.name, text: channel.name + ': ' + plural(channel.posts, 'post') }));
      });
      app.appendChild(legend);
    }
    var head = el('tr', {}, [el('th', { scope: 'col', text: 'Hour' })]);
    data.days.forEach(function (day) {
      head.appendChild(el('th', { scope: 'col', className: day.today ? 'today' : '', text: day.label + (day.today ? ' (today)' : '') }));
    });
    var body = el('tbody');
    data.hours.forEach(function (hour) {
      var row = el('tr', {}, [el('th', { scope: 'row', text: (hour < 10 ? '0' : '') + hour + ':00' })]);
      for (var day = 0; day < 7; day++) row.appendChild(cell(day, hour));
      body.appendChild(row);
    });
    app.appendChild(el('table', { className: 'week' }, [el('thead', {}, [head]), body]));
  }

  function showResult(result) {
    var data = result && result._meta && result._meta[KEY];
    if (data) { render(data); return; }
    var app = document.getElementById('app');
    app.textContent = '';
    app.appendChild(el('p', { className: 'muted', role: 'status', text: textOf(result) || 'Nothing to show.' }));
  }

  startApp('social-publisher-queue-calendar', {
    'ui/notifications/tool-result': showResult,
    'ui/notifications/tool-cancelled': function () { if (!calendar) showResult({ content: [{ type: 'text', text: 'The call was cancelled.' }] }); }
  }, 'The host did not start the calendar: ');
})();
`;
