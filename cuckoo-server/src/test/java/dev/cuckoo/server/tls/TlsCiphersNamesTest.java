package dev.cuckoo.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/**
 * What the JDK engine takes without OpenSSL: lists of cipher names (OpenSSL's or Java's); the first
 * keyword or operator of an OpenSSL cipher string is what the refusal names.
 */
class TlsCiphersNamesTest {
  @Test
  void firstNonName_namesOfEitherSpelling_none() {
    assertNull(
        TlsCiphers.firstNonName(
            "ECDHE-RSA-AES128-GCM-SHA256:TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,"
                + " TLS_AES_128_GCM_SHA256"));
  }

  @Test
  void firstNonName_keywordsAndOperators_firstOneNamed() {
    assertEquals("HIGH", TlsCiphers.firstNonName("HIGH:!aNULL"));
    assertEquals("!aNULL", TlsCiphers.firstNonName("ECDHE-RSA-AES128-GCM-SHA256:!aNULL"));
    assertEquals("ECDHE+AESGCM", TlsCiphers.firstNonName("ECDHE+AESGCM"));
    assertEquals("DEFAULT", TlsCiphers.firstNonName("DEFAULT"));
  }
}
