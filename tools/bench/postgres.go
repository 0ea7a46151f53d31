package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// freshSchema creates an empty schema on the PostgreSQL server of dsn and returns a
// DSN that selects it through search_path, and a function dropping it.
func freshSchema(ctx context.Context, dsn string) (string, func(), error) {
	schema := randomName("skygate_bench_")
	exec := func(ctx context.Context, q string) error { return execOn(ctx, dsn, q) }
	if err := exec(ctx, `CREATE SCHEMA "`+schema+`"`); err != nil {
		return "", nil, fmt.Errorf("create schema: %w", err)
	}
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = exec(ctx, `DROP SCHEMA "`+schema+`" CASCADE`)
	}
	withPath, err := withSearchPath(dsn, schema)
	if err != nil {
		drop()
		return "", nil, err
	}
	return withPath, drop, nil
}

// withSearchPath adds the search_path runtime parameter to a URL or key=value DSN.
func withSearchPath(dsn, schema string) (string, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", fmt.Errorf("PostgreSQL DSN: %w", err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String(), nil
	}
	return dsn + " search_path=" + schema, nil
}

// freshDatabase creates an empty database named prefix plus random hex on the
// PostgreSQL server of dsn (a postgres:// URL), connected through dsn's own database,
// and returns a URL DSN of it and a function dropping it. The drop forces out the
// connections left, so call it after stopping whatever used the database.
func freshDatabase(ctx context.Context, dsn, prefix string) (string, func() error, error) {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", nil, fmt.Errorf("PostgreSQL DSN is not a postgres:// URL")
	}
	name := randomName(prefix)
	exec := func(ctx context.Context, q string) error { return execOn(ctx, dsn, q) }
	if err := exec(ctx, `CREATE DATABASE "`+name+`"`); err != nil {
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	drop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return exec(ctx, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`)
	}
	u.Path, u.RawPath = "/"+name, ""
	return u.String(), drop, nil
}

// randomName is prefix and 12 random hex digits: a schema or database of one run.
func randomName(prefix string) string { return prefix + randomHex(6) }

// execOn runs one statement on a connection of its own to dsn.
func execOn(ctx context.Context, dsn, q string) error {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }() // the statement's error is checked
	_, err = db.ExecContext(ctx, q)
	return err
}
