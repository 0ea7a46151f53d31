package main

import "testing"

func checkDeliveries(t *testing.T, dir string) {}
