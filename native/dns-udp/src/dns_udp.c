/*
 * Batched UDP I/O for the DNSBL server's threads (src/dnsbl/batch-udp.ts).
 *
 * Node's dgram makes one recvmsg, one JavaScript callback and one sendmsg per datagram. Here the
 * thread's own libuv loop polls the socket; each time it is readable, up to `batch` queries are
 * read with one recvmmsg, handed to JavaScript in one call (their bytes in one shared buffer,
 * their lengths in an Int32Array), and the answers JavaScript wrote into a second shared buffer
 * are sent with one sendmmsg, each to the address its query came from. Neither side allocates
 * per datagram.
 *
 * Also: bind a socket (with SO_REUSEPORT, one per DNS thread on the port), read a socket's
 * address, and set the calling thread's EEVDF slice (sched_setattr's sched_runtime for
 * SCHED_OTHER, Linux 6.12+), so a woken DNS thread does not wait out a busy thread's longer slice.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <uv.h>

#define MAX_BATCH 256
/* Batches read per readable event before the loop gets its turn (timers, the change port, TCP). */
#define ROUNDS_PER_EVENT 8

#define CHECK(env, call)                                   \
  do {                                                     \
    if ((call) != napi_ok) return throw_last(env, #call);  \
  } while (0)

static napi_value throw_last(napi_env env, const char *what) {
  const napi_extended_error_info *info = NULL;
  napi_get_last_error_info(env, &info);
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (!pending) napi_throw_error(env, NULL, info && info->error_message ? info->error_message : what);
  return NULL;
}

/* Throws an Error whose code is the errno's name (EADDRINUSE), as Node's own socket errors. */
static napi_value throw_errno(napi_env env, int err, const char *syscall, const char *detail) {
  char message[256];
  const char *name = uv_err_name(-err);
  snprintf(message, sizeof message, "%s %s%s%s", syscall, name, detail ? " " : "", detail ? detail : "");
  napi_value code, msg, error, errno_value;
  napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &code);
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &msg);
  napi_create_error(env, code, msg, &error);
  napi_create_int32(env, -err, &errno_value);
  napi_set_named_property(env, error, "errno", errno_value);
  napi_value syscall_value;
  napi_create_string_utf8(env, syscall, NAPI_AUTO_LENGTH, &syscall_value);
  napi_set_named_property(env, error, "syscall", syscall_value);
  napi_throw(env, error);
  return NULL;
}

static napi_value number(napi_env env, double value) {
  napi_value out;
  napi_create_double(env, value, &out);
  return out;
}

static int arg_int(napi_env env, napi_value v, int32_t *out) {
  return napi_get_value_int32(env, v, out) == napi_ok ? 0 : -1;
}

/*
 * bind(host: string, port: number, reusePort?: boolean) -> fd. A non-blocking, close-on-exec
 * socket of host's family. With reusePort (SO_REUSEPORT), each DNS thread binds a socket of its
 * own on the same port and the kernel spreads the clients over them: a datagram wakes only the
 * thread whose socket it reaches, where threads polling one shared socket were all woken by it.
 */
static napi_value js_bind(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  char host[INET6_ADDRSTRLEN + 1];
  size_t len = 0;
  int32_t port = 0;
  if (argc < 2 || napi_get_value_string_utf8(env, argv[0], host, sizeof host, &len) != napi_ok ||
      arg_int(env, argv[1], &port) != 0 || port < 0 || port > 65535) {
    napi_throw_type_error(env, NULL, "bind(host, port): an IP address and a port");
    return NULL;
  }
  struct sockaddr_storage addr;
  memset(&addr, 0, sizeof addr);
  socklen_t addrlen;
  struct sockaddr_in *v4 = (struct sockaddr_in *)&addr;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&addr;
  if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
    addrlen = sizeof *v4;
  } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    addrlen = sizeof *v6;
  } else {
    napi_throw_type_error(env, NULL, "bind(host, port): host is not an IP address");
    return NULL;
  }
  bool reuse_port = false;
  if (argc > 2) napi_get_value_bool(env, argv[2], &reuse_port);
  int fd = socket(addr.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, errno, "socket", NULL);
  int yes = 1;
  if (reuse_port && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &yes, sizeof yes) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, err, "setsockopt", "SO_REUSEPORT");
  }
  if (bind(fd, (struct sockaddr *)&addr, addrlen) != 0) {
    int err = errno;
    close(fd);
    char where[INET6_ADDRSTRLEN + 16];
    snprintf(where, sizeof where, "%s:%d", host, port);
    return throw_errno(env, err, "bind", where);
  }
  return number(env, fd);
}

/* address(fd) -> { address, port, family: 'IPv4' | 'IPv6' } of the socket (getsockname). */
static napi_value js_address(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd = -1;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1 || arg_int(env, argv[0], &fd) != 0) {
    napi_throw_type_error(env, NULL, "address(fd): a descriptor");
    return NULL;
  }
  struct sockaddr_storage addr;
  socklen_t len = sizeof addr;
  if (getsockname(fd, (struct sockaddr *)&addr, &len) != 0) return throw_errno(env, errno, "getsockname", NULL);
  char text[INET6_ADDRSTRLEN];
  int port = 0;
  const char *family;
  if (addr.ss_family == AF_INET) {
    struct sockaddr_in *v4 = (struct sockaddr_in *)&addr;
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    port = ntohs(v4->sin_port);
    family = "IPv4";
  } else if (addr.ss_family == AF_INET6) {
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&addr;
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    port = ntohs(v6->sin6_port);
    family = "IPv6";
  } else {
    return throw_errno(env, EAFNOSUPPORT, "address", NULL);
  }
  napi_value out, a, f;
  napi_create_object(env, &out);
  napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &a);
  napi_create_string_utf8(env, family, NAPI_AUTO_LENGTH, &f);
  napi_set_named_property(env, out, "address", a);
  napi_set_named_property(env, out, "port", number(env, port));
  napi_set_named_property(env, out, "family", f);
  return out;
}

/* struct sched_attr (include/uapi/linux/sched/types.h), SCHED_ATTR_SIZE_VER1. */
struct netrep_sched_attr {
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime;
  uint64_t sched_deadline;
  uint64_t sched_period;
  uint32_t sched_util_min;
  uint32_t sched_util_max;
};

/*
 * setSlice(ns[, tid]) -> the slice in ns of thread tid (default: the calling thread) as the kernel
 * reads it back (0: the kernel keeps none, before Linux 6.12). Keeps the thread's policy and nice
 * value. Throws on failure.
 */
static napi_value js_set_slice(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  int32_t ns = 0, tid = 0;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1 || arg_int(env, argv[0], &ns) != 0 || ns < 0 || (argc > 1 && (arg_int(env, argv[1], &tid) != 0 || tid < 0))) {
    napi_throw_type_error(env, NULL, "setSlice(ns[, tid]): a number of nanoseconds");
    return NULL;
  }
#ifdef SYS_sched_setattr
  struct netrep_sched_attr attr;
  memset(&attr, 0, sizeof attr);
  if (syscall(SYS_sched_getattr, tid, &attr, sizeof attr, 0) != 0) return throw_errno(env, errno, "sched_getattr", NULL);
  if (attr.sched_policy != 0 /* SCHED_OTHER */ && attr.sched_policy != 3 /* SCHED_BATCH */) {
    return throw_errno(env, EINVAL, "sched_setattr", "(the thread is not SCHED_OTHER)");
  }
  attr.size = sizeof attr;
  attr.sched_flags = 0;
  attr.sched_runtime = (uint64_t)ns;
  if (syscall(SYS_sched_setattr, tid, &attr, 0) != 0) return throw_errno(env, errno, "sched_setattr", NULL);
  memset(&attr, 0, sizeof attr);
  if (syscall(SYS_sched_getattr, tid, &attr, sizeof attr, 0) != 0) return throw_errno(env, errno, "sched_getattr", NULL);
  return number(env, (double)attr.sched_runtime);
#else
  return throw_errno(env, ENOSYS, "sched_setattr", NULL);
#endif
}

typedef struct server {
  uv_poll_t poll;
  napi_env env;
  int fd;
  int batch;
  size_t slot;
  int closing;
  char *in;
  char *out;
  int32_t *lengths;
  int32_t *out_lengths;
  napi_ref in_ref, lengths_ref, out_ref, out_lengths_ref, callback_ref, resource_ref;
  napi_async_context context;
  /*
   * Counters since start: datagrams read, answers sent, answers the kernel refused, readable
   * events, and events that found nothing to read (another thread reading the socket had).
   */
  double received, sent, send_errors, wakes, empty_wakes;
  struct mmsghdr rmsg[MAX_BATCH];
  struct mmsghdr smsg[MAX_BATCH];
  struct iovec riov[MAX_BATCH];
  struct iovec siov[MAX_BATCH];
  struct sockaddr_storage from[MAX_BATCH];
} server_t;

static void teardown(void *arg);

static void release_refs(server_t *s) {
  napi_env env = s->env;
  napi_delete_reference(env, s->in_ref);
  napi_delete_reference(env, s->lengths_ref);
  napi_delete_reference(env, s->out_ref);
  napi_delete_reference(env, s->out_lengths_ref);
  napi_delete_reference(env, s->callback_ref);
  napi_delete_reference(env, s->resource_ref);
  napi_async_destroy(env, s->context);
}

static void on_closed_final(uv_handle_t *handle) {
  server_t *s = handle->data;
  close(s->fd);
  free(s);
}

/* The environment (the thread) is going away: stop polling; the loop's close runs the rest. */
static void teardown(void *arg) {
  server_t *s = arg;
  if (s->closing) return;
  s->closing = 1;
  uv_poll_stop(&s->poll);
  uv_close((uv_handle_t *)&s->poll, on_closed_final);
}

/* Sends answers [0, count) of smsg; a destination the kernel refuses costs its answer only. */
static void send_all(server_t *s, int count) {
  int at = 0;
  while (at < count) {
    int n = sendmmsg(s->fd, s->smsg + at, (unsigned)(count - at), MSG_DONTWAIT);
    if (n > 0) {
      at += n;
      s->sent += n;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)) {
      /* The send buffer is full: UDP answers are dropped, as the kernel would; clients ask again. */
      s->send_errors += count - at;
      return;
    } else {
      s->send_errors += 1;
      at += 1;
    }
  }
}

/* One batch: the datagrams it read (0: none were waiting). */
static int serve_batch(server_t *s) {
  for (int i = 0; i < s->batch; i++) {
    s->riov[i].iov_base = s->in + (size_t)i * s->slot;
    s->riov[i].iov_len = s->slot;
    struct msghdr *h = &s->rmsg[i].msg_hdr;
    h->msg_name = &s->from[i];
    h->msg_namelen = sizeof s->from[i];
    h->msg_iov = &s->riov[i];
    h->msg_iovlen = 1;
    h->msg_control = NULL;
    h->msg_controllen = 0;
    h->msg_flags = 0;
  }
  int n;
  do {
    n = recvmmsg(s->fd, s->rmsg, (unsigned)s->batch, MSG_DONTWAIT, NULL);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return 0;
  s->received += n;
  for (int i = 0; i < n; i++) {
    /* A datagram longer than a slot (65,536 bytes: none can be) is not answered. */
    s->lengths[i] = (s->rmsg[i].msg_hdr.msg_flags & MSG_TRUNC) ? -1 : (int32_t)s->rmsg[i].msg_len;
  }
  napi_env env = s->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return 0;
  napi_value callback, resource, argv[1], result;
  napi_get_reference_value(env, s->callback_ref, &callback);
  napi_get_reference_value(env, s->resource_ref, &resource);
  napi_create_int32(env, n, &argv[0]);
  napi_status status = napi_make_callback(env, s->context, resource, callback, 1, argv, &result);
  if (status != napi_ok) {
    /* The callback threw (the responder never does): the thread's uncaught-exception path. */
    napi_value error;
    if (napi_get_and_clear_last_exception(env, &error) == napi_ok) napi_fatal_exception(env, error);
    napi_close_handle_scope(env, scope);
    return 0;
  }
  if (s->closing) {
    /* Closed from the callback: its buffers are no longer held, so nothing is sent from them. */
    napi_close_handle_scope(env, scope);
    return 0;
  }
  int out = 0;
  for (int i = 0; i < n; i++) {
    int32_t length = s->out_lengths[i];
    if (length <= 0 || (size_t)length > s->slot) continue;
    s->siov[out].iov_base = s->out + (size_t)i * s->slot;
    s->siov[out].iov_len = (size_t)length;
    struct msghdr *h = &s->smsg[out].msg_hdr;
    h->msg_name = &s->from[i];
    h->msg_namelen = s->rmsg[i].msg_hdr.msg_namelen;
    h->msg_iov = &s->siov[out];
    h->msg_iovlen = 1;
    h->msg_control = NULL;
    h->msg_controllen = 0;
    h->msg_flags = 0;
    out++;
  }
  send_all(s, out);
  napi_close_handle_scope(env, scope);
  return n;
}

static void on_readable(uv_poll_t *handle, int status, int events) {
  server_t *s = handle->data;
  if (status < 0 || s->closing) return;
  s->wakes++;
  for (int round = 0; round < ROUNDS_PER_EVENT && !s->closing; round++) {
    int n = serve_batch(s);
    if (round == 0 && n == 0) s->empty_wakes++;
    if (n < s->batch) break;
  }
}

/* A Buffer of at least `min` bytes: true, with its bytes in *data. */
static bool buffer_arg(napi_env env, napi_value value, size_t min, void **data) {
  bool is_buffer = false;
  size_t length = 0;
  return napi_is_buffer(env, value, &is_buffer) == napi_ok && is_buffer &&
         napi_get_buffer_info(env, value, data, &length) == napi_ok && length >= min;
}

/* An Int32Array of at least `min` entries: true, with its entries in *data. */
static bool int32s_arg(napi_env env, napi_value value, size_t min, void **data) {
  bool is_typed = false;
  napi_typedarray_type type;
  size_t count = 0;
  return napi_is_typedarray(env, value, &is_typed) == napi_ok && is_typed &&
         napi_get_typedarray_info(env, value, &type, &count, data, NULL, NULL) == napi_ok &&
         type == napi_int32_array && count >= min;
}

/*
 * serve(fd, batch, slot, input: Buffer, lengths: Int32Array, output: Buffer, outLengths:
 * Int32Array, callback) -> server. Takes the descriptor once its arguments are checked: closed by
 * close(server), or on failure. callback(count) answers queries [0, count): query i is
 * input[i * slot, i * slot + lengths[i]) (length -1: too long, no answer); it writes answer i at
 * output[i * slot] and its length at outLengths[i] (-1: no answer).
 */
static napi_value js_serve(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t fd = -1, batch = 0, slot = 0;
  if (argc < 8 || arg_int(env, argv[0], &fd) != 0 || arg_int(env, argv[1], &batch) != 0 ||
      arg_int(env, argv[2], &slot) != 0 || fd < 0 || batch < 1 || batch > MAX_BATCH || slot < 512) {
    napi_throw_type_error(env, NULL, "serve(fd, batch, slot, input, lengths, output, outLengths, callback)");
    return NULL;
  }
  size_t bytes = (size_t)batch * (size_t)slot;
  void *in = NULL, *out = NULL, *lengths = NULL, *out_lengths = NULL;
  if (!buffer_arg(env, argv[3], bytes, &in) || !int32s_arg(env, argv[4], (size_t)batch, &lengths) ||
      !buffer_arg(env, argv[5], bytes, &out) || !int32s_arg(env, argv[6], (size_t)batch, &out_lengths)) {
    napi_throw_type_error(env, NULL,
                          "serve: input and output must be Buffers of batch * slot bytes, lengths and "
                          "outLengths Int32Arrays of batch entries");
    return NULL;
  }
  napi_valuetype callback_type;
  napi_typeof(env, argv[7], &callback_type);
  if (callback_type != napi_function) {
    napi_throw_type_error(env, NULL, "serve: callback must be a function");
    return NULL;
  }
  uv_loop_t *loop = NULL;
  CHECK(env, napi_get_uv_event_loop(env, &loop));
  server_t *s = calloc(1, sizeof *s);
  if (!s) return throw_errno(env, ENOMEM, "serve", NULL);
  s->env = env;
  s->fd = fd;
  s->batch = batch;
  s->slot = (size_t)slot;
  s->in = in;
  s->lengths = lengths;
  s->out = out;
  s->out_lengths = out_lengths;
  napi_value resource, name;
  napi_create_object(env, &resource);
  napi_create_string_utf8(env, "netrep:dnsbl-udp", NAPI_AUTO_LENGTH, &name);
  if (napi_async_init(env, resource, name, &s->context) != napi_ok) {
    free(s);
    return throw_last(env, "napi_async_init");
  }
  napi_create_reference(env, argv[3], 1, &s->in_ref);
  napi_create_reference(env, argv[4], 1, &s->lengths_ref);
  napi_create_reference(env, argv[5], 1, &s->out_ref);
  napi_create_reference(env, argv[6], 1, &s->out_lengths_ref);
  napi_create_reference(env, argv[7], 1, &s->callback_ref);
  napi_create_reference(env, resource, 1, &s->resource_ref);
  int err = uv_poll_init(loop, &s->poll, fd);
  if (err != 0) {
    release_refs(s);
    close(fd);
    free(s);
    return throw_errno(env, -err, "uv_poll_init", NULL);
  }
  s->poll.data = s;
  err = uv_poll_start(&s->poll, UV_READABLE, on_readable);
  if (err != 0) {
    /* The handle is the loop's until it is closed: its close closes the descriptor and frees. */
    release_refs(s);
    s->closing = 1;
    uv_close((uv_handle_t *)&s->poll, on_closed_final);
    return throw_errno(env, -err, "uv_poll_start", NULL);
  }
  napi_add_env_cleanup_hook(env, teardown, s);
  napi_value external;
  CHECK(env, napi_create_external(env, s, NULL, NULL, &external));
  return external;
}

static server_t *server_of(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  void *data = NULL;
  napi_valuetype type;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_typeof(env, argv[0], &type) != napi_ok || type != napi_external ||
      napi_get_value_external(env, argv[0], &data) != napi_ok) {
    napi_throw_type_error(env, NULL, "a server from serve()");
    return NULL;
  }
  return data;
}

/* close(server): stops reading; the descriptor is closed once the loop has let the handle go. */
static napi_value js_close(napi_env env, napi_callback_info info) {
  server_t *s = server_of(env, info);
  if (!s || s->closing) return NULL;
  s->closing = 1;
  napi_remove_env_cleanup_hook(env, teardown, s);
  release_refs(s);
  uv_poll_stop(&s->poll);
  uv_close((uv_handle_t *)&s->poll, on_closed_final);
  return NULL;
}

/* stats(server) -> [received, sent, sendErrors, wakes, emptyWakes]. */
static napi_value js_stats(napi_env env, napi_callback_info info) {
  server_t *s = server_of(env, info);
  if (!s) return NULL;
  double values[] = {s->received, s->sent, s->send_errors, s->wakes, s->empty_wakes};
  napi_value out;
  napi_create_array_with_length(env, 5, &out);
  for (uint32_t i = 0; i < 5; i++) napi_set_element(env, out, i, number(env, values[i]));
  return out;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"bind", NULL, js_bind, NULL, NULL, NULL, napi_enumerable, NULL},
      {"address", NULL, js_address, NULL, NULL, NULL, napi_enumerable, NULL},
      {"serve", NULL, js_serve, NULL, NULL, NULL, napi_enumerable, NULL},
      {"close", NULL, js_close, NULL, NULL, NULL, napi_enumerable, NULL},
      {"stats", NULL, js_stats, NULL, NULL, NULL, napi_enumerable, NULL},
      {"setSlice", NULL, js_set_slice, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}
