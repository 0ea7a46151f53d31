// Package clientca owns the client certificates partners present on the mutual-TLS
// listener. Where the service holds the client CA's private key (development, sandbox)
// it signs a partner's PKCS#10 request, so the partner's private key never leaves the
// partner; where the key is kept elsewhere (production) it checks a certificate the
// operator's CA signed before the admin API binds it to an application.
//
// Every field of an issued certificate is the service's decision: only the public key
// is taken from the request, after its signature and its strength are checked. A
// problem with the partner's input is an *InputError, whose message is safe to show;
// any other error is the service's own.
package clientca
