package io.fabricpulse.app.run;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.errors.AuthenticationException;

/**
 * One metadata request before a service starts, so that Kafka refusing the credentials (SASL) or
 * the client refusing the broker's certificate (TLS) stops it at once with one line (the command
 * line's handler names the {@link AuthenticationException}, exit 2), instead of a collector
 * dropping every record it sends as refused or a consumer failing on its first poll. A Kafka that
 * does not answer within the wait is not a failure here: the service starts and buffers or retries
 * as it does during any outage.
 */
public final class KafkaCredentialsCheck {
  private KafkaCredentialsCheck() {}

  /**
   * @param client a client configuration (bootstrap servers, security settings); other settings in
   *     it are ignored
   * @throws AuthenticationException when Kafka answered and refused the connection's credentials or
   *     TLS handshake
   */
  public static void verify(Properties client, Duration wait) {
    Properties settings = new Properties();
    client.forEach(
        (k, v) -> {
          if (AdminClientConfig.configNames().contains(k.toString())) {
            settings.put(k, v);
          }
        });
    String millis = Long.toString(wait.toMillis());
    settings.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, millis);
    settings.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, millis);
    Admin admin = Admin.create(settings);
    try {
      admin
          .describeCluster(new DescribeClusterOptions().timeoutMs((int) wait.toMillis()))
          .nodes()
          .get(wait.toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      AuthenticationException refused = authentication(e);
      if (refused != null) {
        throw refused;
      }
    } catch (TimeoutException e) {
      // not answering is an outage, reported by the service's own watch
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      admin.close(Duration.ZERO);
    }
  }

  /** The authentication failure among {@code e} and its causes, or null. */
  public static AuthenticationException authentication(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof AuthenticationException refused) {
        return refused;
      }
    }
    return null;
  }
}
