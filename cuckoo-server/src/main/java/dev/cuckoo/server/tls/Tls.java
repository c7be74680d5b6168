package dev.cuckoo.server.tls;

import dev.cuckoo.server.config.Config;
import dev.cuckoo.server.config.Parameter;
import dev.cuckoo.server.config.Parameters;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.Socket;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * The server's TLS: the current {@link TlsContexts}, built at start-up when tls-port,
 * tls-replication or tls-cluster is on and rebuilt when CONFIG SET changes a {@code tls-*}
 * parameter (a certificate file is read again even when its name is unchanged). Connections
 * accepted or opened afterwards use the new contexts; those already open keep theirs. A rebuild
 * that fails leaves the old contexts in place and CONFIG SET answers with the parameter and file at
 * fault.
 */
public final class Tls {
  private static final System.Logger LOGGER = System.getLogger(Tls.class.getName());

  /**
   * How long a TLS client may take to finish its handshake before it is closed: a client that
   * connects and says nothing, or speaks plaintext slowly, holds its connection this long at most.
   */
  public static final long HANDSHAKE_TIMEOUT_MILLIS = 10_000;

  /** The parameters whose change rebuilds the contexts. */
  private static final List<Parameter<?>> CONTEXT_PARAMETERS =
      List.of(
          Parameters.TLS_CERT_FILE,
          Parameters.TLS_KEY_FILE,
          Parameters.TLS_KEY_FILE_PASS,
          Parameters.TLS_CLIENT_CERT_FILE,
          Parameters.TLS_CLIENT_KEY_FILE,
          Parameters.TLS_CLIENT_KEY_FILE_PASS,
          Parameters.TLS_CA_CERT_FILE,
          Parameters.TLS_CA_CERT_DIR,
          Parameters.TLS_AUTH_CLIENTS,
          Parameters.TLS_PROTOCOLS,
          Parameters.TLS_CIPHERS,
          Parameters.TLS_CIPHERSUITES,
          Parameters.TLS_DH_PARAMS_FILE,
          Parameters.TLS_PREFER_SERVER_CIPHERS,
          Parameters.TLS_SESSION_CACHING,
          Parameters.TLS_SESSION_CACHE_SIZE,
          Parameters.TLS_SESSION_CACHE_TIMEOUT,
          Parameters.TLS_REPLICATION,
          Parameters.TLS_PROVIDER);

  private final Config config;
  private volatile TlsContexts contexts;

  private Tls(Config config) {
    this.config = config;
  }

  /**
   * Builds the contexts if the configuration uses TLS and registers how CONFIG SET rebuilds them.
   *
   * @throws IOException naming the parameter and file at fault if the contexts cannot be built
   */
  public static Tls start(Config config) throws IOException {
    Tls tls = new Tls(config);
    if (tls.used()) {
      try {
        tls.contexts = TlsContexts.build(config);
      } catch (TlsConfigException e) {
        throw new IOException("TLS: " + e.getMessage(), e);
      }
      LOGGER.log(Level.INFO, "TLS with the {0} engine", tls.contexts.provider());
    }
    config.onChange(tls::reload, CONTEXT_PARAMETERS.toArray(new Parameter<?>[0]));
    return tls;
  }

  /** Returns true if any connection uses TLS: a TLS port, TLS replication or a TLS cluster bus. */
  private boolean used() {
    return config.get(Parameters.TLS_PORT) != 0
        || config.get(Parameters.TLS_REPLICATION)
        || config.get(Parameters.TLS_CLUSTER);
  }

  /**
   * Rebuilds the contexts from the parameters' current values (nothing when TLS is not used).
   *
   * @return null if rebuilt, else CONFIG SET's refusal naming the parameter and file at fault (the
   *     old contexts stay)
   */
  public String reload() {
    if (!used()) {
      return null;
    }
    try {
      contexts = TlsContexts.build(config);
      LOGGER.log(Level.INFO, "TLS configuration reloaded ({0})", contexts.provider());
      return null;
    } catch (TlsConfigException e) {
      LOGGER.log(Level.WARNING, "Unable to update TLS configuration: {0}", e.getMessage());
      return "Unable to update TLS configuration. " + e.getMessage();
    }
  }

  /** Returns the engine in use ("OPENSSL" or "JDK"), or null when TLS is not set up. */
  public String provider() {
    TlsContexts current = contexts;
    return current == null ? null : current.provider().name();
  }

  /**
   * Puts a server-side TLS handler at the head of an accepted connection's pipeline, with the
   * handshake timeout and what turns file transfers into encrypted chunks.
   */
  public void acceptInto(ChannelPipeline pipeline, ByteBufAllocator allocator) {
    TlsContexts current = contexts;
    SslHandler handler = current.newHandler(current.server(), allocator, null, 0);
    handler.setHandshakeTimeoutMillis(HANDSHAKE_TIMEOUT_MILLIS);
    if (current.preferServerCiphers()) {
      SSLEngine engine = handler.engine();
      SSLParameters parameters = engine.getSSLParameters();
      parameters.setUseCipherSuitesOrder(true);
      engine.setSSLParameters(parameters);
    }
    pipeline.addFirst(new RegionChunks());
    pipeline.addFirst(new TlsErrors());
    pipeline.addFirst(handler);
  }

  /** Puts a client-side TLS handler at the head of an outgoing link to {@code host:port}. */
  public void connectInto(
      ChannelPipeline pipeline, ByteBufAllocator allocator, String host, int port) {
    TlsContexts current = contexts;
    SslHandler handler = current.newHandler(current.client(), allocator, host, port);
    handler.setHandshakeTimeoutMillis(HANDSHAKE_TIMEOUT_MILLIS);
    pipeline.addFirst(handler);
  }

  /**
   * Returns a connected socket to the master over TLS when tls-replication is on (the handshake
   * done, with the handshake timeout), else the socket itself.
   *
   * @throws IOException if the handshake fails
   */
  public Socket replicationSocket(Socket connected, String host, int port) throws IOException {
    if (!config.get(Parameters.TLS_REPLICATION)) {
      return connected;
    }
    TlsContexts current = contexts;
    if (current == null) {
      throw new IOException("tls-replication is on but TLS is not configured (tls-cert-file)");
    }
    SSLSocket secured =
        (SSLSocket)
            current.jdkClient().getSocketFactory().createSocket(connected, host, port, true);
    secured.setEnabledProtocols(current.protocols().toArray(new String[0]));
    secured.setEnabledCipherSuites(current.jdkClientCiphers().toArray(new String[0]));
    int oldTimeout = connected.getSoTimeout();
    connected.setSoTimeout((int) HANDSHAKE_TIMEOUT_MILLIS);
    secured.startHandshake();
    connected.setSoTimeout(oldTimeout);
    return secured;
  }
}
