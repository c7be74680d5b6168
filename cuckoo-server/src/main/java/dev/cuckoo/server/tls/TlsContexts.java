package dev.cuckoo.server.tls;

import dev.cuckoo.server.config.Parameter;
import dev.cuckoo.server.config.Parameters;
import dev.cuckoo.server.config.TlsProtocols;
import io.netty.handler.ssl.CipherSuiteConverter;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
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
  /** TLSv1.2 ciphers used when only tls-ciphersuites is set (OpenSSL's names). */
  private static final List<String> DEFAULT_TLS12_CIPHERS =
      List.of(
          "ECDHE-ECDSA-AES128-GCM-SHA256",
          "ECDHE-RSA-AES128-GCM-SHA256",
          "ECDHE-ECDSA-AES256-GCM-SHA384",
          "ECDHE-RSA-AES256-GCM-SHA384",
          "ECDHE-ECDSA-CHACHA20-POLY1305",
          "ECDHE-RSA-CHACHA20-POLY1305");

  /** TLSv1.3 suites used when only tls-ciphers is set. */
  private static final List<String> DEFAULT_TLS13_SUITES =
      List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256");

  private final SslProvider provider;
  private final SslContext server;
  private final SslContext client;
  private final SSLContext jdkClient;
  private final List<String> protocols;
  private final List<String> jdkClientCiphers;
  private final boolean preferServerCiphers;

  private TlsContexts(
      SslProvider provider,
      SslContext server,
      SslContext client,
      JdkSslContext jdkClient,
      List<String> protocols,
      boolean preferServerCiphers) {
    this.provider = provider;
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
    SslProvider provider = provider(config.get(Parameters.TLS_PROVIDER));
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
    checkPair(certFile, "tls-cert-file", keyFile, keyPass, "tls-key-file");
    List<String> protocols = TlsProtocols.parse(config.get(Parameters.TLS_PROTOCOLS));
    List<String> ciphers = ciphers(config, provider);
    boolean preferServer = config.get(Parameters.TLS_PREFER_SERVER_CIPHERS);

    SslContextBuilder serverBuilder;
    try {
      serverBuilder = SslContextBuilder.forServer(certFile.toFile(), keyFile.toFile(), keyPass);
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
        finish(serverBuilder, provider, protocols, ciphers, "tls-cert-file", certFile, keyFile);
    sessionCaching(server, config.get(Parameters.TLS_SESSION_CACHING));

    Path clientCert = readable(config, Parameters.TLS_CLIENT_CERT_FILE, false);
    Path clientKey = readable(config, Parameters.TLS_CLIENT_KEY_FILE, false);
    String clientPass = config.get(Parameters.TLS_CLIENT_KEY_FILE_PASS);
    String certName = "tls-client-cert-file";
    if (clientCert == null || clientKey == null) {
      clientCert = certFile;
      clientKey = keyFile;
      clientPass = keyPass;
      certName = "tls-cert-file";
    } else {
      checkPair(clientCert, certName, clientKey, clientPass, "tls-client-key-file");
    }
    SslContext client =
        finish(
            clientBuilder(clientCert, clientKey, clientPass, authorities),
            provider,
            protocols,
            ciphers,
            certName,
            clientCert,
            clientKey);
    SslContext jdkClient =
        finish(
            clientBuilder(clientCert, clientKey, clientPass, authorities),
            SslProvider.JDK,
            protocols,
            ciphers(config, SslProvider.JDK),
            certName,
            clientCert,
            clientKey);
    return new TlsContexts(
        provider, server, client, (JdkSslContext) jdkClient, protocols, preferServer);
  }

  /** Checks that a certificate file holds a certificate and its key file the matching key. */
  private static void checkPair(
      Path certFile, String certParameter, Path keyFile, String keyPass, String keyParameter)
      throws TlsConfigException {
    List<X509Certificate> chain = certificates(certFile, certParameter);
    if (chain.isEmpty()) {
      throw new TlsConfigException(certParameter + " " + certFile + ": no certificate in the file");
    }
    KeyCheck.matches(keyFile.toFile(), keyPass, chain.get(0), keyParameter);
  }

  private static SslContextBuilder clientBuilder(
      Path cert, Path key, String pass, List<X509Certificate> authorities) {
    // the pair was checked: the key manager reads it without surprise
    SslContextBuilder builder =
        SslContextBuilder.forClient()
            .keyManager(cert.toFile(), key.toFile(), pass)
            // Redis checks the peer's chain, not its name (servers are often reached by address)
            .endpointIdentificationAlgorithm(null);
    if (!authorities.isEmpty()) {
      builder.trustManager(authorities);
    }
    return builder;
  }

  private static SslContext finish(
      SslContextBuilder builder,
      SslProvider provider,
      List<String> protocols,
      List<String> ciphers,
      String certName,
      Path cert,
      Path key)
      throws TlsConfigException {
    builder
        .sslProvider(provider)
        .protocols(protocols)
        .ciphers(ciphers, SupportedCipherSuiteFilter.INSTANCE);
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
    if (context.cipherSuites().isEmpty()) {
      throw new TlsConfigException(
          "tls-ciphers/tls-ciphersuites: none of "
              + ciphers
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

  private static SslProvider provider(String wanted) throws TlsConfigException {
    if (wanted.equals("jdk")) {
      return SslProvider.JDK;
    }
    if (OpenSsl.isAvailable()) {
      return SslProvider.OPENSSL;
    }
    if (wanted.equals("openssl")) {
      throw new TlsConfigException(
          "tls-provider openssl: OpenSSL is not available here ("
              + OpenSsl.unavailabilityCause()
              + "); use tls-provider jdk or auto");
    }
    return SslProvider.JDK;
  }

  /**
   * Returns the cipher names tls-ciphers and tls-ciphersuites give (null: the engine's defaults),
   * in the spelling the engine reads: OpenSSL's names pass as they are to OpenSSL and are turned
   * into Java's for the JDK.
   */
  private static List<String> ciphers(Parameter.View config, SslProvider provider) {
    String tls12 = config.get(Parameters.TLS_CIPHERS);
    String tls13 = config.get(Parameters.TLS_CIPHERSUITES);
    if (tls12 == null && tls13 == null) {
      return null;
    }
    Set<String> names = new LinkedHashSet<>();
    names.addAll(tls12 == null ? DEFAULT_TLS12_CIPHERS : split(tls12));
    names.addAll(tls13 == null ? DEFAULT_TLS13_SUITES : split(tls13));
    if (provider != SslProvider.JDK) {
      return List.copyOf(names);
    }
    List<String> java = new ArrayList<>();
    for (String name : names) {
      String converted = name.startsWith("TLS_") ? name : CipherSuiteConverter.toJava(name, "TLS");
      java.add(converted != null ? converted : name);
    }
    return java;
  }

  private static List<String> split(String list) {
    List<String> names = new ArrayList<>();
    for (String name : list.split("[:,\\s]+")) {
      if (!name.isEmpty()) {
        names.add(name);
      }
    }
    return names;
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
