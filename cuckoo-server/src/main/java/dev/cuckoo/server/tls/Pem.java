package dev.cuckoo.server.tls;

import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The blocks of a PEM file (RFC 7468, with OpenSSL's legacy RFC 1421 headers such as {@code
 * Proc-Type} and {@code DEK-Info}): label, headers and the decoded body. Text outside blocks is
 * ignored, as OpenSSL ignores it.
 */
final class Pem {
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([^-\\r\\n]+)-----\\r?\\n(.*?)-----END \\1-----", Pattern.DOTALL);

  /**
   * One block.
   *
   * @param label what follows BEGIN, e.g. {@code RSA PRIVATE KEY}
   * @param headers the {@code Name: value} lines before the body, in order
   * @param body the decoded base64 body
   */
  record Block(String label, Map<String, String> headers, byte[] body) {}

  private Pem() {}

  /**
   * Returns the blocks of a PEM text in file order.
   *
   * @throws IllegalArgumentException if a block's body is not base64
   */
  static List<Block> blocks(String text) {
    List<Block> blocks = new ArrayList<>();
    Matcher matcher = BLOCK.matcher(text);
    while (matcher.find()) {
      Map<String, String> headers = new LinkedHashMap<>();
      StringBuilder base64 = new StringBuilder();
      for (String line : matcher.group(2).split("\\r?\\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && base64.length() == 0) {
          headers.put(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
        } else {
          base64.append(line.strip());
        }
      }
      blocks.add(
          new Block(matcher.group(1), headers, Base64.getMimeDecoder().decode(base64.toString())));
    }
    return blocks;
  }
}
