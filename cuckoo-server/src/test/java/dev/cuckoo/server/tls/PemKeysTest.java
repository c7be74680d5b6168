package dev.cuckoo.server.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The DER that turns traditional keys into PKCS#8, byte for byte, and what it refuses. */
class PemKeysTest {
  private static final HexFormat HEX = HexFormat.of();

  @Test
  void rsaToPkcs8_wrapsTheKeyWithRsaEncryption() {
    byte[] pkcs1 = HEX.parseHex("3003020100");
    assertArrayEquals(
        HEX.parseHex("3019" + "020100" + "300d06092a864886f70d0101010500" + "0405" + "3003020100"),
        PemKeys.rsaToPkcs8(pkcs1));
  }

  @Test
  void ecToPkcs8_takesTheCurveFromTheKey() {
    // SEC1: version 1, a 1-byte private key, [0] prime256v1
    String sec1 = "3012020101040101a00a06082a8648ce3d030107";
    assertEquals(
        "302e" + "020100" + "3013" + "06072a8648ce3d0201" + "06082a8648ce3d030107" + "0414" + sec1,
        HEX.formatHex(PemKeys.ecToPkcs8(HEX.parseHex(sec1))));
  }

  @Test
  void ecToPkcs8_withoutCurveOrNotDer_refused() {
    IllegalArgumentException noCurve =
        assertThrows(
            IllegalArgumentException.class,
            () -> PemKeys.ecToPkcs8(HEX.parseHex("3006020101040101")));
    assertEquals("the EC key does not name its curve", noCurve.getMessage());
    IllegalArgumentException cut =
        assertThrows(
            IllegalArgumentException.class, () -> PemKeys.rsaToPkcs8(HEX.parseHex("3005")));
    assertEquals("DER length 5 (expected: <= 0)", cut.getMessage());
  }
}
