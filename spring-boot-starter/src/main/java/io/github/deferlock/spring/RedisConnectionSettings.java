package io.github.deferlock.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code spring.data.redis.*} properties this starter reads to build a Jedis client, bound by hand (not a
 * {@code @ConfigurationProperties} bean) so it does not repeat the metadata of Spring Boot's own Redis module.
 */
public class RedisConnectionSettings {

    private String url;
    private String host = "localhost";
    private int port = 6379;
    private String username;
    private String password;
    private int database;
    private Duration timeout;
    private Duration connectTimeout;
    private String clientName;
    private final Ssl ssl = new Ssl();
    private Sentinel sentinel;
    private Cluster cluster;

    /** {@code spring.data.redis.url}: {@code redis://[user:password@]host:port[/database]}, {@code rediss://} for TLS. */
    public String getUrl() {
        return url;
    }

    /** Sets the URL. */
    public void setUrl(String url) {
        this.url = url;
    }

    /** {@code spring.data.redis.host} (default localhost). */
    public String getHost() {
        return host;
    }

    /** Sets the host. */
    public void setHost(String host) {
        this.host = host;
    }

    /** {@code spring.data.redis.port} (default 6379). */
    public int getPort() {
        return port;
    }

    /** Sets the port; 1 to 65535. */
    public void setPort(int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("spring.data.redis.port must be within [1, 65535], not " + port);
        }
        this.port = port;
    }

    /** {@code spring.data.redis.username} (ACL user). */
    public String getUsername() {
        return username;
    }

    /** Sets the user. */
    public void setUsername(String username) {
        this.username = username;
    }

    /** {@code spring.data.redis.password}. */
    public String getPassword() {
        return password;
    }

    /** Sets the password. */
    public void setPassword(String password) {
        this.password = password;
    }

    /** {@code spring.data.redis.database} (default 0). */
    public int getDatabase() {
        return database;
    }

    /** Sets the database index. */
    public void setDatabase(int database) {
        this.database = database;
    }

    /** {@code spring.data.redis.timeout}: the socket read timeout. */
    public Duration getTimeout() {
        return timeout;
    }

    /** Sets the read timeout. */
    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    /** {@code spring.data.redis.connect-timeout}. */
    public Duration getConnectTimeout() {
        return connectTimeout;
    }

    /** Sets the connect timeout. */
    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    /** {@code spring.data.redis.client-name}. */
    public String getClientName() {
        return clientName;
    }

    /** Sets the client name. */
    public void setClientName(String clientName) {
        this.clientName = clientName;
    }

    /** {@code spring.data.redis.ssl.*}. */
    public Ssl getSsl() {
        return ssl;
    }

    /** {@code spring.data.redis.sentinel.*}, or null. */
    public Sentinel getSentinel() {
        return sentinel;
    }

    /** Sets the sentinel settings. */
    public void setSentinel(Sentinel sentinel) {
        this.sentinel = sentinel;
    }

    /** {@code spring.data.redis.cluster.*}, or null. */
    public Cluster getCluster() {
        return cluster;
    }

    /** Sets the cluster settings. */
    public void setCluster(Cluster cluster) {
        this.cluster = cluster;
    }

    /** {@code spring.data.redis.ssl.*}. */
    public static class Ssl {
        private Boolean enabled;
        private String bundle;

        /** Whether TLS is on; on when a bundle is named, unless set to false. */
        public boolean isEnabled() {
            return enabled != null ? enabled : bundle != null;
        }

        /** Sets whether TLS is on. */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** The SSL bundle ({@code spring.ssl.bundle.*}) for trust and key material; null for the JVM's defaults. */
        public String getBundle() {
            return bundle;
        }

        /** Sets the SSL bundle name. */
        public void setBundle(String bundle) {
            this.bundle = bundle;
        }
    }

    /** {@code spring.data.redis.sentinel.*}. */
    public static class Sentinel {
        private String master;
        private List<String> nodes = new ArrayList<>();
        private String username;
        private String password;

        /** The master's name. */
        public String getMaster() {
            return master;
        }

        /** Sets the master's name. */
        public void setMaster(String master) {
            this.master = master;
        }

        /** The sentinels, {@code host:port} each. */
        public List<String> getNodes() {
            return nodes;
        }

        /** Sets the sentinels. */
        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }

        /** The sentinels' own user, or null. */
        public String getUsername() {
            return username;
        }

        /** Sets the sentinels' user. */
        public void setUsername(String username) {
            this.username = username;
        }

        /** The sentinels' own password, or null. */
        public String getPassword() {
            return password;
        }

        /** Sets the sentinels' password. */
        public void setPassword(String password) {
            this.password = password;
        }
    }

    /** {@code spring.data.redis.cluster.*}. */
    public static class Cluster {
        private List<String> nodes = new ArrayList<>();
        private Integer maxRedirects;

        /** Seed nodes, {@code host:port} each. */
        public List<String> getNodes() {
            return nodes;
        }

        /** Sets the seed nodes. */
        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }

        /** Redirects (MOVED/ASK) followed per command, or null for Jedis's default. */
        public Integer getMaxRedirects() {
            return maxRedirects;
        }

        /** Sets the redirects followed per command. */
        public void setMaxRedirects(Integer maxRedirects) {
            this.maxRedirects = maxRedirects;
        }
    }
}
