package dev.cuckoo.server.tls;

import dev.cuckoo.server.config.Parameter;
import dev.cuckoo.server.config.Parameters;
import dev.cuckoo.server.config.TlsProtocols;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSessionContext;

/**
 * One generation of the server's TLS contexts, built from the {@code tls-*} parameters as Redis's
 * {@code tlsConfigure} builds its {@code SSL_CTX}s: the server's (the listener's, checking clients
 * as tls-auth-clients says), the client's for outgoing links (the cluster bus, over Netty) and the
 * same client's as a JDK {@link SSLContext} (the replica's blocking link to its master). Outgoing
 * links present tls-client-cert-file if it and its key are set, else tls-cert-file, and check the
 * peer's chain against the CA certificates only (no host name check), as Redis does.
 */
final class TlsContexts {
  private final SslProvider provider;
  private final SslContext server;
  private final SslContext client;
  private final SSLContext jdkClient;
  private final List<String> protocols;
  private final List<String> jdkClientCiphers;
  private final boolean preferServerCiphers;
  private final TlsCiphers ciphers;

  private TlsContexts(
      SslProvider provider,
      SslContext server,
      SslContext client,
      JdkSslContext jdkClient,
      List<String> protocols,
      boolean preferServerCiphers,
      TlsCiphers ciphers) {
    this.provider = provider;
    this.ciphers = ciphers;
    this.server = server;
    this.client = client;
    this.jdkClient = jdkClient.context();
    this.jdkClientCiphers = jdkClient.cipherSuites();
    this.protocols = protocols;
    this.preferServerCiphers = preferServerCiphers;
  }

  /**
   * Builds the contexts from the parameters' values.
   *
   * @throws TlsConfigException naming the parameter (and file) at fault
   */
  static TlsContexts build(Parameter.View config) throws TlsConfigException {
    TlsCiphers ciphers = TlsCiphers.of(config);
    SslProvider provider = ciphers.engine(config.get(Parameters.TLS_PROVIDER));
    Path certFile = readable(config, Parameters.TLS_CERT_FILE, true);
    Path keyFile = readable(config, Parameters.TLS_KEY_FILE, true);
    Path caFile = readable(config, Parameters.TLS_CA_CERT_FILE, false);
    String caDir = config.get(Parameters.TLS_CA_CERT_DIR);
    ClientAuth auth =
        switch (config.get(Parameters.TLS_AUTH_CLIENTS)) {
          case "no" -> ClientAuth.NONE;
          case "optional" -> ClientAuth.OPTIONAL;
          default -> ClientAuth.REQUIRE;
        };
    boolean outgoing = config.get(Parameters.TLS_REPLICATION) || config.get(Parameters.TLS_CLUSTER);
    if ((auth != ClientAuth.NONE || outgoing) && caFile == null && caDir == null) {
      throw new TlsConfigException(
          "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster,"
              + " tls-replication or tls-auth-clients are enabled");
    }
    List<X509Certificate> authorities = new ArrayList<>();
    if (caFile != null) {
      authorities.addAll(certificates(caFile, "tls-ca-cert-file"));
    }
    if (caDir != null) {
      authorities.addAll(directory(caDir));
    }
    String keyPass = config.get(Parameters.TLS_KEY_FILE_PASS);
    Identity identity = identity(certFile, "tls-cert-file", keyFile, keyPass, "tls-key-file");
    Path dhParams = readable(config, Parameters.TLS_DH_PARAMS_FILE, false);
    if (dhParams != null) {
      DhParams.check(dhParams);
    }
    List<String> protocols = TlsProtocols.parse(config.get(Parameters.TLS_PROTOCOLS));
    List<String> jdkCiphers = ciphers.forJdk();
    boolean preferServer = config.get(Parameters.TLS_PREFER_SERVER_CIPHERS);

    SslContextBuilder serverBuilder;
    try {
      serverBuilder = SslContextBuilder.forServer(identity.key(), identity.chain());
    } catch (IllegalArgumentException e) {
      throw new TlsConfigException(
          "tls-cert-file " + certFile + ", tls-key-file " + keyFile + ": " + rootMessage(e), e);
    }
    serverBuilder
        .clientAuth(auth)
        .sessionCacheSize(config.get(Parameters.TLS_SESSION_CACHE_SIZE))
        .sessionTimeout(config.get(Parameters.TLS_SESSION_CACHE_TIMEOUT));
    if (!authorities.isEmpty()) {
      serverBuilder.trustManager(authorities);
    }
    SslContext server =
        finish(
            serverBuilder,
            provider,
            protocols,
            ciphers,
            jdkCiphers,
            "tls-cert-file",
            certFile,
            keyFile);
    sessionCaching(server, config.get(Parameters.TLS_SESSION_CACHING));

    Path clientCert = readable(config, Parameters.TLS_CLIENT_CERT_FILE, false);
    Path clientKey = readable(config, Parameters.TLS_CLIENT_KEY_FILE, false);
    String certName = "tls-client-cert-file";
    Identity clientIdentity = identity;
    if (clientCert == null || clientKey == null) {
      clientCert = certFile;
      clientKey = keyFile;
      certName = "tls-cert-file";
    } else {
      clientIdentity =
          identity(
              clientCert,
              certName,
              clientKey,
              config.get(Parameters.TLS_CLIENT_KEY_FILE_PASS),
              "tls-client-key-file");
    }
    SslContext client =
        finish(
            clientBuilder(clientIdentity, authorities),
            provider,
            protocols,
            ciphers,
            jdkCiphers,
            certName,
            clientCert,
            clientKey);
    SslContext jdkClient =
        finish(
            clientBuilder(clientIdentity, authorities),
            SslProvider.JDK,
            protocols,
            ciphers,
            jdkCiphers,
            certName,
            clientCert,
            clientKey);
    return new TlsContexts(
        provider, server, client, (JdkSslContext) jdkClient, protocols, preferServer, ciphers);
  }

  /**
   * A certificate chain and its private key, read from their files.
   *
   * @param key the private key
   * @param chain the certificate first, then the certificates that signed it
   */
  private record Identity(PrivateKey key, X509Certificate[] chain) {}

  /**
   * Reads a certificate file and its key file, checking that the key is the certificate's (any of
   * the PEM key forms OpenSSL reads: {@link PemKeys}).
   */
  private static Identity identity(
      Path certFile, String certParameter, Path keyFile, String keyPass, String keyParameter)
      throws TlsConfigException {
    List<X509Certificate> chain = certificates(certFile, certParameter);
    if (chain.isEmpty()) {
      throw new TlsConfigException(certParameter + " " + certFile + ": no certificate in the file");
    }
    PrivateKey key = KeyCheck.matches(keyFile, keyPass, chain.get(0), keyParameter);
    return new Identity(key, chain.toArray(new X509Certificate[0]));
  }

  private static SslContextBuilder clientBuilder(
      Identity identity, List<X509Certificate> authorities) {
    SslContextBuilder builder =
        SslContextBuilder.forClient()
            .keyManager(identity.key(), identity.chain())
            // Redis checks the peer's chain, not its name (servers are often reached by address)
            .endpointIdentificationAlgorithm(null);
    if (!authorities.isEmpty()) {
      builder.trustManager(authorities);
    }
    return builder;
  }

  /**
   * Builds a context: the JDK engine with the cipher suites in Java's names, the OpenSSL engine
   * with Netty's defaults (its engines are then given tls-ciphers as written: {@link #newHandler}),
   * checking that OpenSSL takes the string.
   */
  private static SslContext finish(
      SslContextBuilder builder,
      SslProvider provider,
      List<String> protocols,
      TlsCiphers ciphers,
      List<String> jdkCiphers,
      String certName,
      Path cert,
      Path key)
      throws TlsConfigException {
    boolean jdk = provider == SslProvider.JDK;
    builder
        .sslProvider(provider)
        .protocols(protocols)
        .ciphers(jdk ? jdkCiphers : null, SupportedCipherSuiteFilter.INSTANCE);
    SslContext context;
    try {
      context = builder.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new TlsConfigException(
          certName
              + " "
              + cert
              + " with its key "
              + key
              + ": "
              + rootMessage(e)
              + " (a wrong key, or a wrong passphrase?)",
          e);
    }
    if (!jdk) {
      if (ciphers.forOpenSsl()) {
        ciphers.check(context);
      }
    } else if (context.cipherSuites().isEmpty()) {
      throw new TlsConfigException(
          "tls-ciphers/tls-ciphersuites: none of "
              + jdkCiphers
              + " is supported by the "
              + provider
              + " engine");
    }
    return context;
  }

  /** Turns session caching off (OpenSSL) or shrinks it to nothing useful (the JDK has no off). */
  private static void sessionCaching(SslContext context, boolean on) {
    if (on) {
      return;
    }
    SSLSessionContext sessions = context.sessionContext();
    if (sessions instanceof OpenSslSessionContext openSsl) {
      openSsl.setSessionCacheEnabled(false);
    } else {
      sessions.setSessionCacheSize(1);
      sessions.setSessionTimeout(1);
    }
  }

  /**
   * Returns the path a file parameter names after checking the file can be read; null if the
   * parameter is not set and not {@code required}.
   */
  private static Path readable(Parameter.View config, Parameter<String> parameter, boolean required)
      throws TlsConfigException {
    String name = config.get(parameter);
    if (name == null) {
      if (required) {
        throw new TlsConfigException("No " + parameter.name() + " configured");
      }
      return null;
    }
    Path path = Paths.get(name);
    if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
      throw new TlsConfigException(
          parameter.name() + " " + name + ": not a readable file (no such file, or no access)");
    }
    return path;
  }

  private static List<X509Certificate> certificates(Path file, String parameterName)
      throws TlsConfigException {
    try (InputStream in = Files.newInputStream(file)) {
      List<X509Certificate> certificates = new ArrayList<>();
      for (java.security.cert.Certificate certificate :
          CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        certificates.add((X509Certificate) certificate);
      }
      return certificates;
    } catch (IOException | CertificateException e) {
      throw new TlsConfigException(
          parameterName + " " + file + ": not PEM certificates: " + rootMessage(e), e);
    }
  }

  /** Reads every file of the directory that holds certificates (others, e.g. CRLs, are skipped). */
  private static List<X509Certificate> directory(String name) throws TlsConfigException {
    Path dir = Paths.get(name);
    if (!Files.isDirectory(dir)) {
      throw new TlsConfigException("tls-ca-cert-dir " + name + ": not a directory");
    }
    List<X509Certificate> certificates = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path entry : entries) {
        if (!Files.isRegularFile(entry)) {
          continue;
        }
        try {
          certificates.addAll(certificates(entry, "tls-ca-cert-dir"));
        } catch (TlsConfigException notCertificates) {
          // OpenSSL's directories hold other files too
        }
      }
    } catch (IOException e) {
      throw new TlsConfigException("tls-ca-cert-dir " + name + ": " + e, e);
    }
    if (certificates.isEmpty()) {
      throw new TlsConfigException("tls-ca-cert-dir " + name + ": no certificate in it");
    }
    return certificates;
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage();
    return message == null ? root.getClass().getSimpleName() : message;
  }

  /** Returns the engine the contexts use. */
  SslProvider provider() {
    return provider;
  }

  /**
   * Returns a TLS handler of {@code context} (the server's or the outgoing links'), its OpenSSL
   * engine given tls-ciphers as written.
   */
  SslHandler newHandler(SslContext context, ByteBufAllocator allocator, String host, int port) {
    SslHandler handler =
        host == null ? context.newHandler(allocator) : context.newHandler(allocator, host, port);
    if (provider != SslProvider.JDK && ciphers.forOpenSsl()) {
      ciphers.applyTo(handler.engine());
    }
    return handler;
  }

  /** Returns the server's context. */
  SslContext server() {
    return server;
  }

  /** Returns the outgoing links' context (Netty). */
  SslContext client() {
    return client;
  }

  /** Returns the outgoing links' context as the JDK's, for blocking sockets. */
  SSLContext jdkClient() {
    return jdkClient;
  }

  /** Returns the TLS versions enabled. */
  List<String> protocols() {
    return protocols;
  }

  /** Returns the cipher suites the JDK client context enables. */
  List<String> jdkClientCiphers() {
    return jdkClientCiphers;
  }

  /** Returns true if the server chooses the cipher by its own order. */
  boolean preferServerCiphers() {
    return preferServerCiphers;
  }
}
