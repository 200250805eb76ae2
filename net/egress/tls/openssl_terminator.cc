#include "net/egress/tls/openssl_terminator.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace paddock::net::egress::tls {
namespace {

constexpr unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};

std::string last_error(const char* fallback) {
  unsigned long code = ERR_peek_last_error();
  std::string text = fallback;
  if (code != 0) {
    const char* reason = ERR_reason_error_string(code);
    if (reason != nullptr) text = reason;
  }
  ERR_clear_error();
  return text;
}

core::Error setup_error(const std::string& what) {
  return core::Error{EIO, what + ": " + last_error("unknown error")};
}

// The proxy speaks HTTP/1.1 to the sandbox, whatever else the client offers; a client that
// offers only other protocols gets no ALPN answer, and HTTP/1.1 is what TLS without it means.
int select_http11(SSL* /*ssl*/, const unsigned char** out, unsigned char* out_length,
                  const unsigned char* offered, unsigned int offered_length, void* /*arg*/) {
  unsigned char* chosen = nullptr;
  if (SSL_select_next_proto(&chosen, out_length, kHttp11, sizeof kHttp11, offered,
                            offered_length) != OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_NOACK;
  }
  *out = chosen;
  return SSL_TLSEXT_ERR_OK;
}

class OpensslEnd final : public TlsEnd {
 public:
  OpensslEnd(SSL* ssl, BIO* in, BIO* out) : ssl_(ssl), in_(in), out_(out) {}
  ~OpensslEnd() override { SSL_free(ssl_); }  // frees both BIOs too
  OpensslEnd(const OpensslEnd&) = delete;
  OpensslEnd& operator=(const OpensslEnd&) = delete;

  void receive(std::string_view raw) override {
    if (!raw.empty()) BIO_write(in_, raw.data(), static_cast<int>(raw.size()));
  }
  [[nodiscard]] std::size_t unprocessed() const override { return BIO_ctrl_pending(in_); }

  bool read(std::string& plain, std::size_t room) override {
    if (!error_.empty()) return false;
    ERR_clear_error();  // the queue is per thread, and other connections share it
    if (!SSL_is_init_finished(ssl_)) {
      int done = SSL_do_handshake(ssl_);
      if (done != 1) return wants_more(done);
    }
    char chunk[16 * 1024];
    while (room > 0 && !peer_closed_) {
      int got = SSL_read(ssl_, chunk, static_cast<int>(std::min(room, sizeof chunk)));
      if (got <= 0) return wants_more(got);
      plain.append(chunk, static_cast<std::size_t>(got));
      room -= static_cast<std::size_t>(got);
    }
    return true;
  }

  bool write(std::string_view plain) override {
    if (!error_.empty() || !established()) return false;
    ERR_clear_error();
    while (!plain.empty()) {
      // A memory BIO takes everything: a write is whole or failed.
      int wrote = SSL_write(ssl_, plain.data(),
                            static_cast<int>(std::min<std::size_t>(plain.size(), 1 << 30)));
      if (wrote <= 0) return wants_more(wrote) && false;
      plain.remove_prefix(static_cast<std::size_t>(wrote));
    }
    return true;
  }

  void take_outgoing(std::string& raw) override {
    char chunk[16 * 1024];
    int got;
    while ((got = BIO_read(out_, chunk, sizeof chunk)) > 0) {
      raw.append(chunk, static_cast<std::size_t>(got));
    }
  }

  [[nodiscard]] bool established() const override { return SSL_is_init_finished(ssl_) == 1; }
  [[nodiscard]] bool peer_closed() const override { return peer_closed_; }
  void close() override {
    if (closed_) return;
    closed_ = true;
    ERR_clear_error();
    if (established()) SSL_shutdown(ssl_);
    ERR_clear_error();
  }
  [[nodiscard]] std::string error() const override { return error_; }

 private:
  // After a call that returned `result`: true when it only waits for bytes; else the error.
  bool wants_more(int result) {
    int kind = SSL_get_error(ssl_, result);
    if (kind == SSL_ERROR_WANT_READ || kind == SSL_ERROR_WANT_WRITE) return true;
    if (kind == SSL_ERROR_ZERO_RETURN) {
      peer_closed_ = true;
      return true;
    }
    long verified = SSL_get_verify_result(ssl_);
    if (verified != X509_V_OK) {
      error_ = std::string("its certificate failed verification: ") +
               X509_verify_cert_error_string(verified);
    } else {
      error_ = "the TLS handshake failed: " + last_error("the connection broke off");
    }
    ERR_clear_error();
    return false;
  }

  SSL* ssl_;
  BIO* in_;   // what the peer sent
  BIO* out_;  // what goes to the peer
  bool peer_closed_ = false;
  bool closed_ = false;
  std::string error_;
};

// An end over `ssl` (null when SSL_new failed), which it then owns.
core::Result<std::unique_ptr<TlsEnd>> new_end(SSL* ssl, bool server) {
  BIO* in = BIO_new(BIO_s_mem());
  BIO* out = BIO_new(BIO_s_mem());
  if (ssl == nullptr || in == nullptr || out == nullptr) {
    SSL_free(ssl);
    BIO_free(in);
    BIO_free(out);
    return setup_error("making a TLS connection");
  }
  // An empty memory BIO reads as "try again", not as the end of the stream.
  BIO_set_mem_eof_return(in, -1);
  SSL_set_bio(ssl, in, out);
  if (server) {
    SSL_set_accept_state(ssl);
  } else {
    SSL_set_connect_state(ssl);
  }
  return std::unique_ptr<TlsEnd>(std::make_unique<OpensslEnd>(ssl, in, out));
}

Context new_context(const SSL_METHOD* method) {
  Context context(SSL_CTX_new(method));
  if (!context) return nullptr;
  SSL_CTX_set_min_proto_version(context.get(), TLS1_2_VERSION);
  // No renegotiation: a handshake in the middle of a connection is nothing an HTTP/1.1 client
  // of an API needs, and one more state for a hostile peer to drive.
  SSL_CTX_set_options(context.get(), SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
  return context;
}

}  // namespace

void ContextFree::operator()(SSL_CTX* context) const {
  SSL_CTX_free(context);
}

core::Result<std::shared_ptr<OpensslTerminator>> OpensslTerminator::create(
    const std::vector<std::string>& hosts, const std::optional<std::string>& ca_file) {
  auto authority = CertificateAuthority::create(hosts);
  if (!authority) return authority.error();
  std::shared_ptr<OpensslTerminator> terminator(new OpensslTerminator(std::move(*authority)));
  terminator->client_context_ = new_context(TLS_client_method());
  SSL_CTX* client = terminator->client_context_.get();
  if (client == nullptr) return setup_error("making the upstream TLS context");
  SSL_CTX_set_verify(client, SSL_VERIFY_PEER, nullptr);
  if (ca_file) {
    if (access(ca_file->c_str(), R_OK) != 0) {
      return core::invalid_input("--egress-ca-file " + *ca_file +
                                 " cannot be read: " + std::strerror(errno) +
                                 "; give a readable file of PEM CA certificates");
    }
    if (SSL_CTX_load_verify_locations(client, ca_file->c_str(), nullptr) != 1) {
      return core::invalid_input(
          "--egress-ca-file " + *ca_file + " holds no PEM certificate OpenSSL can read (" +
          last_error("unreadable") + "); give a file of PEM CA certificates");
    }
  } else if (SSL_CTX_set_default_verify_paths(client) != 1) {
    return setup_error("loading the system's trust store");
  }
  return terminator;
}

core::Result<std::unique_ptr<TlsEnd>> OpensslTerminator::serve(const std::string& host) {
  SSL_CTX* context = nullptr;
  {
    std::lock_guard lock(mutex_);
    auto found = server_contexts_.find(host);
    if (found == server_contexts_.end()) {
      auto leaf = authority_.issue(host);
      if (!leaf) return leaf.error();
      Context made = new_context(TLS_server_method());
      if (!made || SSL_CTX_use_certificate(made.get(), leaf->get()) != 1 ||
          SSL_CTX_use_PrivateKey(made.get(), authority_.leaf_key()) != 1) {
        return setup_error("making the TLS context for " + host);
      }
      SSL_CTX_set_alpn_select_cb(made.get(), select_http11, nullptr);
      found = server_contexts_.emplace(host, std::move(made)).first;
    }
    context = found->second.get();
  }
  return new_end(SSL_new(context), true);
}

core::Result<std::unique_ptr<TlsEnd>> OpensslTerminator::connect(const std::string& host) {
  SSL* ssl = SSL_new(client_context_.get());
  // The real host's name, sent (SNI) and checked against its certificate; HTTP/1.1 alone, which
  // is what the requests from the sandbox are.
  if (ssl != nullptr &&
      (SSL_set_tlsext_host_name(ssl, host.c_str()) != 1 || SSL_set1_host(ssl, host.c_str()) != 1 ||
       SSL_set_alpn_protos(ssl, kHttp11, sizeof kHttp11) != 0)) {
    SSL_free(ssl);
    return setup_error("making the TLS connection to " + host);
  }
  return new_end(ssl, false);
}

}  // namespace paddock::net::egress::tls
