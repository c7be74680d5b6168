package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Certificates for the TLS tests, made once per test JVM by the {@code openssl} command (as Redis's
 * {@code utils/gen-test-certs.sh} makes its own): a CA, a server certificate for localhost and
 * 127.0.0.1, a client certificate, a second server certificate (the reload test), and a client
 * certificate signed by another CA that the server does not trust. Without openssl the tests skip,
 * and fail under {@code CI=true}.
 *
 * @param dir where the files are
 */
record TestCertificates(Path dir) {
  private static TestCertificates made;

  /** Returns the certificates, making them at the first call. */
  static synchronized TestCertificates get() throws IOException, InterruptedException {
    if (made == null) {
      String openssl = onPath("openssl");
      if (openssl == null && "true".equals(System.getenv("CI"))) {
        fail("openssl is not installed, and CI must run the TLS tests (.ci/run installs it)");
      }
      assumeTrue(openssl != null, "openssl not installed: the TLS tests are skipped");
      Path dir = Path.of("target", "test-certs", UUID.randomUUID().toString()).toAbsolutePath();
      Files.createDirectories(dir);
      TestCertificates certificates = new TestCertificates(dir);
      certificates.make(openssl);
      made = certificates;
    }
    return made;
  }

  /** Returns the absolute path of an executable on PATH, or null. */
  static String onPath(String name) {
    for (String entry : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      File candidate = new File(entry, name);
      if (candidate.canExecute()) {
        return candidate.getPath();
      }
    }
    return null;
  }

  private void make(String openssl) throws IOException, InterruptedException {
    Files.writeString(
        dir.resolve("server.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n",
        StandardCharsets.UTF_8);
    Files.writeString(
        dir.resolve("client.ext"), "extendedKeyUsage=clientAuth\n", StandardCharsets.UTF_8);
    authority(openssl, "ca", "cuckoo test CA");
    authority(openssl, "other-ca", "untrusted test CA");
    signed(openssl, "server", "localhost", "ca", "server.ext");
    signed(openssl, "server2", "localhost", "ca", "server.ext");
    signed(openssl, "client", "cuckoo client", "ca", "client.ext");
    signed(openssl, "stranger", "stranger", "other-ca", "client.ext");
    run(
        openssl,
        "pkcs8",
        "-topk8",
        "-v2",
        "aes-256-cbc",
        "-in",
        file("server.key"),
        "-out",
        file("server-encrypted.key"),
        "-passout",
        "pass:key secret");
  }

  private void authority(String openssl, String name, String subject)
      throws IOException, InterruptedException {
    run(
        openssl,
        "req",
        "-x509",
        "-new",
        "-nodes",
        "-newkey",
        "rsa:2048",
        "-sha256",
        "-days",
        "2",
        "-subj",
        "/CN=" + subject,
        "-keyout",
        file(name + ".key"),
        "-out",
        file(name + ".crt"));
  }

  private void signed(String openssl, String name, String subject, String ca, String extensions)
      throws IOException, InterruptedException {
    run(
        openssl,
        "req",
        "-new",
        "-nodes",
        "-newkey",
        "rsa:2048",
        "-subj",
        "/CN=" + subject,
        "-keyout",
        file(name + ".key"),
        "-out",
        file(name + ".csr"));
    sign(openssl, name, ca, extensions);
  }

  /** Signs {@code name.csr} with the CA {@code ca}, adding {@code extensions}: {@code name.crt}. */
  private void sign(String openssl, String name, String ca, String extensions)
      throws IOException, InterruptedException {
    run(
        openssl,
        "x509",
        "-req",
        "-sha256",
        "-days",
        "2",
        "-in",
        file(name + ".csr"),
        "-CA",
        file(ca + ".crt"),
        "-CAkey",
        file(ca + ".key"),
        "-CAcreateserial",
        "-extfile",
        file(extensions),
        "-out",
        file(name + ".crt"));
  }

  /** Runs the openssl command with {@code args} in the certificates' directory. */
  void openssl(String... args) throws IOException, InterruptedException {
    String[] command = new String[args.length + 1];
    command[0] = onPath("openssl");
    System.arraycopy(args, 0, command, 1, args.length);
    run(command);
  }

  /**
   * Makes {@code name.crt}, a server certificate for localhost signed by the test CA, for the key
   * in {@code keyFile} (any form openssl reads; {@code passphrase} if it is encrypted, else null).
   */
  void signServerKey(String name, String keyFile, String passphrase)
      throws IOException, InterruptedException {
    List<String> request =
        new ArrayList<>(
            List.of(
                "req",
                "-new",
                "-key",
                file(keyFile),
                "-subj",
                "/CN=localhost",
                "-out",
                file(name + ".csr")));
    if (passphrase != null) {
      request.addAll(List.of("-passin", "pass:" + passphrase));
    }
    openssl(request.toArray(new String[0]));
    sign(onPath("openssl"), name, "ca", "server.ext");
  }

  private void run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed:\n" + output);
    }
  }

  /** Returns a file's absolute path as text. */
  String file(String name) {
    return dir.resolve(name).toString();
  }

  /**
   * Returns the settings of a server listening for TLS only ({@code port 0}) on a free port, with
   * the server certificate, trusting the test CA, in memory only.
   */
  ServerConfig.Builder tlsOnly() throws IOException {
    return withTls(TestServers.memoryOnly().port(0), TestServers.freePort());
  }

  /** Adds a TLS port and this server certificate and CA to {@code builder}. */
  ServerConfig.Builder withTls(ServerConfig.Builder builder, int tlsPort) throws IOException {
    return builder
        .set("tls-port", Integer.toString(tlsPort))
        .set("tls-cert-file", file("server.crt"))
        .set("tls-key-file", file("server.key"))
        .set("tls-ca-cert-file", file("ca.crt"));
  }

  /**
   * Returns a JDK context for clients: trusting the test CA and, if {@code certificate} is given
   * ("client", "stranger"), presenting that certificate.
   */
  SSLContext clientContext(String certificate) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", certificate("ca.crt"));
    TrustManagerFactory trustManagers =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(trust);
    KeyManagerFactory keyManagers = null;
    if (certificate != null) {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry(
          "client",
          privateKey(dir.resolve(certificate + ".key")),
          new char[0],
          new X509Certificate[] {certificate(certificate + ".crt")});
      keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keyManagers.init(keys, new char[0]);
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(
        keyManagers == null ? null : keyManagers.getKeyManagers(),
        trustManagers.getTrustManagers(),
        null);
    return context;
  }

  /**
   * Returns a TLS connection to {@code port} on the loopback address, the handshake done,
   * presenting {@code certificate} ("client", "stranger" or null for none).
   */
  javax.net.ssl.SSLSocket connect(int port, String certificate) throws Exception {
    javax.net.ssl.SSLSocket socket =
        (javax.net.ssl.SSLSocket)
            clientContext(certificate)
                .getSocketFactory()
                .createSocket(java.net.InetAddress.getLoopbackAddress(), port);
    socket.setSoTimeout(10_000);
    socket.startHandshake();
    return socket;
  }

  private X509Certificate certificate(String name) throws Exception {
    try (InputStream in = Files.newInputStream(dir.resolve(name))) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  /** Reads an unencrypted PKCS#8 PEM key (what openssl 3 writes). */
  private static java.security.PrivateKey privateKey(Path file) throws Exception {
    String pem = Files.readString(file, StandardCharsets.US_ASCII);
    String base64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    byte[] der = java.util.Base64.getDecoder().decode(base64);
    return java.security.KeyFactory.getInstance("RSA")
        .generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(der));
  }

  /**
   * Runs redis-cli against the TLS port {@code port}, presenting {@code certificate} (or none), and
   * returns what it printed, trimmed; skips the test if redis-cli is not installed.
   */
  String redisCli(int port, String certificate, String... args) throws Exception {
    String cli = onPath("redis-cli");
    assumeTrue(cli != null, "redis-cli not installed");
    List<String> command = new ArrayList<>(List.of(cli, "-p", Integer.toString(port)));
    command.addAll(cliOptions(certificate));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IOException("redis-cli did not end; output: " + output);
    }
    return output.trim();
  }

  /** Returns the redis-cli options that connect over TLS with {@code certificate} (or none). */
  List<String> cliOptions(String certificate) {
    List<String> options = new ArrayList<>(List.of("--tls", "--cacert", file("ca.crt")));
    if (certificate != null) {
      options.addAll(
          List.of("--cert", file(certificate + ".crt"), "--key", file(certificate + ".key")));
    }
    return options;
  }
}
