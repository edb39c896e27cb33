package web

import (
	"embed"
	"io/fs"
)

// VendorMount is the URL path at which the server serves Vendor, so that
// vendor/echarts/echarts.min.js is at /static/vendor/echarts/echarts.min.js:
//
//	mux.Handle("GET "+web.VendorMount, http.StripPrefix(web.VendorMount, http.FileServerFS(web.Vendor)))
const VendorMount = "/static/vendor/"

// EChartsDir is the URL directory of the vendored ECharts when Vendor is
// served at VendorMount; EChartsJS is its script.
const (
	EChartsDir = VendorMount + "echarts/"
	EChartsJS  = EChartsDir + "echarts.min.js"
)

//go:embed vendor
var vendorFiles embed.FS

// Vendor holds third-party browser assets, rooted at the vendor directory:
// echarts/echarts.min.js is Apache ECharts 5.6.0 exactly as published on npm
// (echarts-5.6.0.tgz, sha1 2377874dca9fb50f104051c3553544752da3c9d6), with
// its LICENSE and NOTICE beside it. Nothing is fetched from a CDN.
var Vendor fs.FS = func() fs.FS {
	f, err := fs.Sub(vendorFiles, "vendor")
	if err != nil {
		panic("web: " + err.Error())
	}
	return f
}()
