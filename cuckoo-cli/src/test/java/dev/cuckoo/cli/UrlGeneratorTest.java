package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class UrlGeneratorTest {
  @Test
  void url_sameSeedAndId_sameUrl() {
    UrlGenerator a = new UrlGenerator(42);
    UrlGenerator b = new UrlGenerator(42);
    for (long id = 0; id < 1000; id++) {
      assertEquals(a.url(id), b.url(id));
    }
    assertNotEquals(a.url(7), new UrlGenerator(43).url(7));
  }

  @Test
  void url_distinctIds_distinctUrls() {
    UrlGenerator generator = new UrlGenerator(1);
    Set<String> seen = new HashSet<>();
    for (long id = 0; id < 200_000; id++) {
      String url = generator.url(id);
      assertTrue(seen.add(url), "duplicate " + url + " at id " + id);
      assertTrue(url.matches("https?://[a-z.]+(/[a-z0-9]+)+/([a-z]+-)+[0-9a-z]+.*"), url);
    }
  }

  @Test
  void url_siteSkew_fewSitesAreFrequent() {
    UrlGenerator generator = new UrlGenerator(3);
    java.util.Map<String, Integer> hosts = new java.util.HashMap<>();
    int n = 100_000;
    for (long id = 0; id < n; id++) {
      String url = generator.url(id);
      String host = url.substring(url.indexOf("//") + 2, url.indexOf('/', url.indexOf("//") + 2));
      hosts.merge(host, 1, Integer::sum);
    }
    int max = hosts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    // the most frequent of 20,000 sites: P(site 0) = (1/20000)^(1/3) ~ 3.7%, far above uniform
    assertTrue(max > n / 100, "max per host " + max);
    assertTrue(hosts.size() > 1000, "hosts " + hosts.size());
  }
}
