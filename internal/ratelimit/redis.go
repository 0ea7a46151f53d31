package ratelimit

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// gcraScript is GCRA on Redis, atomic per key, on the Redis server's clock so that
// replicas with skewed clocks agree. Times are microseconds. It returns
// {allowed, retry_after, reset, new_tat_minus_now}. A key lives until its allowance is
// full again, plus a second.
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

// refundScript gives back one interval (ARGV[1], microseconds) of a key's arrival
// time, keeping the key's expiry in step; a key that becomes full is deleted.
var refundScript = redis.NewScript(`
local interval = tonumber(ARGV[1])
local tat = tonumber(redis.call('GET', KEYS[1]))
if not tat then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
tat = tat - interval
if tat <= now then
  redis.call('DEL', KEYS[1])
  return 0
end
redis.call('SET', KEYS[1], tat, 'PX', math.ceil((tat - now) / 1000) + 1000)
return 1
`)

// Redis is a Limiter shared by every replica that uses the same Redis. Its keys are
// the prefix and the hexadecimal digest of the limiter's key, and expire.
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

// key is the Redis key of a limiter key.
func (l *Redis) key(key string) string {
	d := digestOf(key)
	return l.prefix + hex.EncodeToString(d[:])
}

// microseconds is r's interval in the scripts' unit, at least 1.
func microseconds(r Rate) int64 { return max(r.interval().Microseconds(), 1) }

// Allow implements Limiter.
func (l *Redis) Allow(ctx context.Context, key string, r Rate) (Decision, error) {
	if !r.Enabled() {
		return Decision{Allowed: true}, nil
	}
	interval := microseconds(r)
	burst := r.burst()
	res, err := gcraScript.Run(ctx, l.client, []string{l.key(key)}, interval, burst).Int64Slice()
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

// Refund implements Limiter.
func (l *Redis) Refund(ctx context.Context, key string, r Rate) error {
	if !r.Enabled() {
		return nil
	}
	if err := refundScript.Run(ctx, l.client, []string{l.key(key)}, microseconds(r)).Err(); err != nil {
		return fmt.Errorf("ratelimit: redis: %w", err)
	}
	return nil
}
