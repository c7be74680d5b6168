package dev.cuckoo.cli;

import java.util.SplittableRandom;

/**
 * Generates URL-like strings for the demo: realistic hosts, paths and query strings, skewed so that
 * a few sites are frequent, and a function of {@code (seed, id)} alone, so the same data set can be
 * produced again at will.
 *
 * <p>Distinct ids always give distinct URLs: the id appears in base 36 after the last {@code '-'}
 * of every URL, and nothing after it contains a {@code '-'}.
 */
final class UrlGenerator {
  private static final String[] WORDS = {
    "alpha", "amber", "apple", "arrow", "atlas", "autumn", "bay", "beacon", "berry", "blue",
    "bright", "brook", "cedar", "cloud", "coast", "copper", "coral", "crest", "crown", "delta",
    "desert", "dream", "eagle", "echo", "ember", "falcon", "fern", "field", "fire", "forest", "fox",
    "frost", "garden", "glacier", "gold", "granite", "harbor", "hawk", "hill", "iron", "island",
    "jade", "lake", "leaf", "light", "lime", "lotus", "maple", "meadow", "mint", "moon", "north",
    "oak", "ocean", "olive", "orbit", "pearl", "pine", "pixel", "prairie", "quartz", "rain",
    "raven", "red", "reef", "ridge", "river", "rock", "rose", "sage", "sand", "shadow", "silver",
    "sky", "snow", "solar", "spark", "spring", "star", "stone", "storm", "summit", "sun", "swift",
    "thunder", "tide", "timber", "trail", "valley", "violet", "wave", "willow", "wind", "winter",
    "wolf", "wood"
  };
  private static final String[] SECTIONS = {
    "blog",
    "news",
    "products",
    "docs",
    "articles",
    "shop",
    "category",
    "users",
    "wiki",
    "posts",
    "events",
    "help",
    "tag",
    "archive",
    "recipes",
    "video",
    "2024",
    "2025",
    "en",
    "de"
  };
  private static final String[] SUBDOMAINS = {"www.", "www.", "www.", "", "m.", "blog.", "shop."};
  private static final String[] TLDS = {
    ".com", ".com", ".com", ".org", ".net", ".io", ".de", ".co.uk", ".fr", ".dev"
  };
  private static final String[] SOURCES = {"newsletter", "twitter", "google", "partner", "feed"};
  private static final int SITES = 20_000;
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private final long seed;
  private final StringBuilder builder = new StringBuilder(128);

  /**
   * Creates a generator.
   *
   * @param seed selects the data set
   */
  UrlGenerator(long seed) {
    this.seed = seed;
  }

  /**
   * Returns URL number {@code id} of this generator's data set.
   *
   * @param id any value at least 0
   * @return the URL, distinct for distinct ids
   */
  String url(long id) {
    SplittableRandom random = new SplittableRandom(seed ^ (id * GOLDEN));
    StringBuilder url = builder;
    url.setLength(0);
    url.append(random.nextInt(10) == 0 ? "http://" : "https://");
    // a skewed site: u^3 makes site k about as likely as k^(-2/3), so a few sites are frequent
    double u = random.nextDouble();
    int site = (int) (SITES * u * u * u);
    SplittableRandom siteRandom = new SplittableRandom(seed + site * GOLDEN);
    url.append(pick(SUBDOMAINS, siteRandom))
        .append(pick(WORDS, siteRandom))
        .append(pick(WORDS, siteRandom))
        .append(pick(TLDS, siteRandom));
    int depth = 1 + random.nextInt(3);
    for (int i = 0; i < depth; i++) {
      url.append('/').append(i == 0 ? pick(SECTIONS, random) : pick(WORDS, random));
    }
    url.append('/');
    int slugWords = 1 + random.nextInt(3);
    for (int i = 0; i < slugWords; i++) {
      url.append(pick(WORDS, random)).append('-');
    }
    url.append(Long.toString(id, 36));
    switch (random.nextInt(6)) {
      case 0:
        url.append(".html");
        break;
      case 1:
        url.append('/');
        break;
      case 2:
        url.append("?ref=").append(pick(WORDS, random));
        break;
      case 3:
        url.append("?utm_source=").append(pick(SOURCES, random)).append("&utm_medium=email");
        break;
      default:
        break;
    }
    return url.toString();
  }

  private static String pick(String[] choices, SplittableRandom random) {
    return choices[random.nextInt(choices.length)];
  }
}
