module github.com/skygate/skygate/client

go 1.26.0

require (
	github.com/oapi-codegen/runtime v1.9.0
	golang.org/x/oauth2 v0.37.0
)

require (
	github.com/apapsch/go-jsonmerge/v2 v2.0.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
)
