package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// gcraScript is GCRA on Redis, atomic per key, on the Redis server's clock so that
// replicas with skewed clocks agree. Times are microseconds. It returns
// {allowed, retry_after, reset, new_tat_minus_now}.
var gcraScript = redis.NewScript(`
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local nxt = tat + interval
local allow_at = nxt - burst * interval
if now < allow_at then
  return {0, allow_at - now, tat - now}
end
redis.call('SET', KEYS[1], nxt, 'PX', math.ceil((nxt - now) / 1000) + 1000)
return {1, 0, nxt - now}
`)

// Redis is a Limiter shared by every replica that uses the same Redis.
type Redis struct {
	client *redis.Client
	prefix string
}

// NewRedis connects to the Redis at url (redis://[:password@]host:port/db).
func NewRedis(url, prefix string) (*Redis, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("ratelimit: SKYGATE_REDIS_URL: %w", err)
	}
	opts.ReadTimeout = 200 * time.Millisecond
	opts.WriteTimeout = 200 * time.Millisecond
	return &Redis{client: redis.NewClient(opts), prefix: prefix}, nil
}

// Ping checks the connection.
func (l *Redis) Ping(ctx context.Context) error { return l.client.Ping(ctx).Err() }

// Close closes the connection pool.
func (l *Redis) Close() error { return l.client.Close() }

// Allow implements Limiter.
func (l *Redis) Allow(ctx context.Context, key string, r Rate) (Decision, error) {
	if !r.Enabled() {
		return Decision{Allowed: true}, nil
	}
	interval := r.interval().Microseconds()
	if interval < 1 {
		interval = 1
	}
	burst := r.burst()
	res, err := gcraScript.Run(ctx, l.client, []string{l.prefix + key}, interval, burst).Int64Slice()
	if err != nil {
		return Decision{}, fmt.Errorf("ratelimit: redis: %w", err)
	}
	d := Decision{Allowed: res[0] == 1, Limit: int(burst), Reset: time.Duration(res[2]) * time.Microsecond}
	if d.Allowed {
		d.Remaining = int((burst*interval - res[2]) / interval)
	} else {
		d.RetryAfter = time.Duration(res[1]) * time.Microsecond
	}
	return d, nil
}
