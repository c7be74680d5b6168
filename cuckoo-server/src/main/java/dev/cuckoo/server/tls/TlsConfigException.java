package dev.cuckoo.server.tls;

/** A TLS setting that cannot be used; the message names the parameter and the file at fault. */
public final class TlsConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  TlsConfigException(String message) {
    super(message);
  }

  TlsConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
