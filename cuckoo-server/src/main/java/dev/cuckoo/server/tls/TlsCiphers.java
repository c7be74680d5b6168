package dev.cuckoo.server.tls;

import dev.cuckoo.server.config.Parameter;
import dev.cuckoo.server.config.Parameters;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.CipherSuiteConverter;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.internal.tcnative.SSL;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;

/**
 * What tls-ciphers and tls-ciphersuites ask of each engine, as Redis hands them to OpenSSL's {@code
 * SSL_CTX_set_cipher_list} and {@code SSL_CTX_set_ciphersuites}.
 *
 * <p>tls-ciphers is an OpenSSL cipher string ({@code HIGH:!aNULL}, {@code DEFAULT}, {@code
 * ECDHE+AESGCM}, or cipher names). The OpenSSL engine is given the string itself. The JDK engine
 * (and the replica's link to its master, which always uses the JDK's) is given the cipher names
 * OpenSSL makes of the string when OpenSSL is loaded; without OpenSSL it takes lists of cipher
 * names only (OpenSSL's or Java's) and refuses keywords and operators, naming them.
 *
 * <p>tls-ciphersuites lists TLSv1.3 suites. The JDK engine restricts TLSv1.3 to them. BoringSSL,
 * the OpenSSL that netty-tcnative-boringssl-static carries, cannot restrict TLSv1.3 suites: with a
 * list that leaves out one of its suites, tls-provider auto picks the JDK engine and tls-provider
 * openssl is refused, so the server never negotiates a suite the list excludes.
 */
final class TlsCiphers {
  /** TLSv1.2 ciphers used when only tls-ciphersuites is set (OpenSSL's names). */
  private static final List<String> DEFAULT_TLS12_CIPHERS =
      List.of(
          "ECDHE-ECDSA-AES128-GCM-SHA256",
          "ECDHE-RSA-AES128-GCM-SHA256",
          "ECDHE-ECDSA-AES256-GCM-SHA384",
          "ECDHE-RSA-AES256-GCM-SHA384",
          "ECDHE-ECDSA-CHACHA20-POLY1305",
          "ECDHE-RSA-CHACHA20-POLY1305");

  /** TLSv1.3 suites: those used when only tls-ciphers is set, and all BoringSSL has. */
  private static final List<String> TLS13_SUITES =
      List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256");

  private final String tls12;
  private final String tls13;

  private TlsCiphers(String tls12, String tls13) {
    this.tls12 = tls12;
    this.tls13 = tls13;
  }

  /** Returns the parameters' cipher settings (null halves: the engine's defaults). */
  static TlsCiphers of(Parameter.View config) {
    return new TlsCiphers(
        blankToNull(config.get(Parameters.TLS_CIPHERS)),
        blankToNull(config.get(Parameters.TLS_CIPHERSUITES)));
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.strip();
  }

  /**
   * Returns the engine to use: the JDK's if asked, or if tls-ciphersuites excludes a TLSv1.3 suite
   * BoringSSL would negotiate and the choice is auto; OpenSSL where it loads otherwise.
   *
   * @throws TlsConfigException if OpenSSL is asked for and is not available, or cannot honour
   *     tls-ciphersuites
   */
  SslProvider engine(String wanted) throws TlsConfigException {
    if (wanted.equals("jdk")) {
      return SslProvider.JDK;
    }
    if (!OpenSsl.isAvailable()) {
      if (wanted.equals("openssl")) {
        throw new TlsConfigException(
            "tls-provider openssl: OpenSSL is not available here ("
                + OpenSsl.unavailabilityCause()
                + "); use tls-provider jdk or auto");
      }
      return SslProvider.JDK;
    }
    if (restrictsBoringSslTls13()) {
      if (wanted.equals("openssl")) {
        throw new TlsConfigException(
            "tls-ciphersuites '"
                + tls13
                + "': the OpenSSL engine here ("
                + OpenSsl.versionString()
                + ") cannot restrict TLSv1.3 cipher suites; use tls-provider jdk or auto (auto"
                + " picks the JDK engine for such a list)");
      }
      return SslProvider.JDK;
    }
    return SslProvider.OPENSSL;
  }

  /** Returns true if tls-ciphersuites leaves out a suite BoringSSL would negotiate. */
  private boolean restrictsBoringSslTls13() {
    return tls13 != null
        && OpenSsl.versionString().contains("BoringSSL")
        && !names(tls13).containsAll(TLS13_SUITES);
  }

  /**
   * Returns the cipher suites, in Java's names, to give a JDK engine; null for the engine's
   * defaults.
   *
   * @throws TlsConfigException naming tls-ciphers if it cannot be read
   */
  List<String> forJdk() throws TlsConfigException {
    if (tls12 == null && tls13 == null) {
      return null;
    }
    Set<String> suites = new LinkedHashSet<>();
    if (tls12 == null) {
      suites.addAll(javaNames(DEFAULT_TLS12_CIPHERS));
    } else if (isNameList(tls12)) {
      suites.addAll(javaNames(names(tls12)));
    } else {
      suites.addAll(evaluatedByOpenSsl(tls12));
    }
    suites.addAll(tls13 == null ? TLS13_SUITES : javaNames(names(tls13)));
    return List.copyOf(suites);
  }

  /** Returns true if an OpenSSL engine needs these settings given (tls-ciphers is set). */
  boolean forOpenSsl() {
    return tls12 != null || (tls13 != null && !OpenSsl.versionString().contains("BoringSSL"));
  }

  /**
   * Checks that OpenSSL takes the settings, on an engine of {@code context} made for the purpose.
   *
   * @throws TlsConfigException naming the parameter if OpenSSL refuses its string
   */
  void check(SslContext context) throws TlsConfigException {
    SSLEngine engine = context.newEngine(ByteBufAllocator.DEFAULT);
    try {
      String refusal = give(engine);
      if (refusal != null) {
        throw new TlsConfigException(refusal);
      }
    } finally {
      ReferenceCountUtil.release(engine);
    }
  }

  /**
   * Gives tls-ciphers (and, with an OpenSSL that can, tls-ciphersuites) to a new OpenSSL engine, as
   * Redis's SSL_CTX_set_cipher_list does to its context: Netty gives a context only cipher names it
   * knows, so the string goes to each engine. The settings were {@link #check checked}.
   *
   * @throws IllegalStateException if OpenSSL refuses what it took when checked
   */
  void applyTo(SSLEngine engine) {
    String refusal = give(engine);
    if (refusal != null) {
      throw new IllegalStateException(refusal);
    }
  }

  /** Gives the settings to an OpenSSL engine; returns why OpenSSL refused them, or null. */
  private String give(SSLEngine engine) {
    long ssl = ((ReferenceCountedOpenSslEngine) engine).sslPointer();
    if (tls12 != null) {
      String refusal = setCipherString(ssl, openSslSpelling(tls12), false, "tls-ciphers");
      if (refusal != null) {
        return refusal;
      }
    }
    if (tls13 != null && !OpenSsl.versionString().contains("BoringSSL")) {
      return setCipherString(ssl, tls13, true, "tls-ciphersuites");
    }
    return null;
  }

  private static String setCipherString(long ssl, String spec, boolean tls13, String parameter) {
    boolean accepted;
    String reason = "no cipher matches";
    try {
      accepted = SSL.setCipherSuites(ssl, spec, tls13);
    } catch (Exception e) {
      accepted = false;
      reason = e.getMessage();
    }
    return accepted
        ? null
        : parameter + " '" + spec + "': Failed to configure ciphers (" + reason + ")";
  }

  /**
   * Returns a cipher string as OpenSSL reads it: Java's cipher names (TLS_ECDHE_RSA_WITH_...) in a
   * list of names are turned into OpenSSL's; anything else is left to OpenSSL.
   */
  private static String openSslSpelling(String spec) {
    if (!isNameList(spec)) {
      return spec;
    }
    boolean boringSsl = OpenSsl.versionString().contains("BoringSSL");
    List<String> names = new ArrayList<>();
    for (String name : names(spec)) {
      String converted = CipherSuiteConverter.toOpenSsl(name, boringSsl);
      names.add(converted != null ? converted : name);
    }
    return String.join(":", names);
  }

  /**
   * Returns the cipher names OpenSSL makes of a cipher string (TLSv1.2 and below, Java's names).
   */
  private static List<String> evaluatedByOpenSsl(String spec) throws TlsConfigException {
    if (!OpenSsl.isAvailable()) {
      String keyword = firstNonName(spec);
      throw new TlsConfigException(
          "tls-ciphers '"
              + spec
              + "': '"
              + keyword
              + "' is not a cipher name. OpenSSL cipher strings (keywords such as HIGH or"
              + " DEFAULT, the operators ! + - @) need OpenSSL, which is not available here ("
              + OpenSsl.unavailabilityCause()
              + "); the JDK engine takes cipher names, e.g. ECDHE-RSA-AES128-GCM-SHA256");
    }
    SslContext scratch = null;
    SSLEngine engine = null;
    try {
      scratch =
          SslContextBuilder.forClient()
              .sslProvider(SslProvider.OPENSSL_REFCNT)
              .protocols("TLSv1.2")
              .build();
      engine = scratch.newEngine(ByteBufAllocator.DEFAULT);
      String refusal = new TlsCiphers(spec, null).give(engine);
      if (refusal != null) {
        throw new TlsConfigException(refusal);
      }
      List<String> names = new ArrayList<>();
      for (String name : engine.getEnabledCipherSuites()) {
        if (!TLS13_SUITES.contains(name)) {
          names.add(name);
        }
      }
      return names;
    } catch (SSLException e) {
      throw new TlsConfigException("tls-ciphers '" + spec + "': " + e.getMessage(), e);
    } finally {
      ReferenceCountUtil.release(engine);
      ReferenceCountUtil.release(scratch);
    }
  }

  /** Returns true if every word is a cipher name (OpenSSL's or Java's), not a keyword. */
  private static boolean isNameList(String spec) {
    return firstNonName(spec) == null;
  }

  /** Returns the first word of a cipher string that is not a cipher name, or null. */
  static String firstNonName(String spec) {
    for (String word : names(spec)) {
      if (!word.startsWith("TLS_")
          && !word.startsWith("SSL_")
          && CipherSuiteConverter.toJava(word, "TLS") == null) {
        return word;
      }
    }
    return null;
  }

  /** Returns Java's names of cipher names (OpenSSL's are converted; Java's stay). */
  private static List<String> javaNames(List<String> names) {
    List<String> java = new ArrayList<>();
    for (String name : names) {
      String converted = name.startsWith("TLS_") ? name : CipherSuiteConverter.toJava(name, "TLS");
      java.add(converted != null ? converted : name);
    }
    return java;
  }

  /** Splits a cipher list on OpenSSL's separators (colon, comma, space). */
  private static List<String> names(String list) {
    List<String> names = new ArrayList<>();
    for (String name : list.split("[:,\\s]+")) {
      if (!name.isEmpty()) {
        names.add(name);
      }
    }
    return names;
  }
}
