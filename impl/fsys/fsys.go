// Package fsys: STUB being implemented.
package fsys
