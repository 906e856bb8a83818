//! `make deploy` for a site with files in R2 (`[storage] r2_bucket`): `scripts/r2-put.mjs` puts
//! only the objects the bucket does not hold: through R2's S3 API when its credentials are set
//! (a HEAD per key; large objects in parts: checked against moto's S3 server, which `make setup`
//! installs, the nearest to R2's S3 API that runs here), else through `wrangler r2 object put`
//! (its record of the keys put, since wrangler cannot list a bucket; files over its 300 MiB
//! refused before anything is put); and `scripts/deploy.sh` refuses to upload a Worker whose
//! wrangler.toml binds no `EDGESITE_R2`, before it builds or uploads anything. (The objects'
//! round trip through the Worker is tests/stored.rs's, under wrangler dev's local R2; an
//! account's bucket is not reachable here.)
#![cfg(not(target_arch = "wasm32"))]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn only_objects_not_yet_put_are_put() {
    let objects = tempfile::tempdir().unwrap();
    let folder = objects.path().join("_edgesite/r");
    std::fs::create_dir_all(&folder).unwrap();
    for name in ["a.bin", "b.bin", "c.bin"] {
        std::fs::write(folder.join(name), name).unwrap();
    }
    // The project folder the record is kept in: `a` was put by an earlier deploy.
    let project = tempfile::tempdir().unwrap();
    let record = project.path().join(".edgesite/r2");
    std::fs::create_dir_all(&record).unwrap();
    std::fs::write(record.join("site-media.txt"), "_edgesite/r/a.bin\n").unwrap();
    let output = Command::new("node")
        .arg(Path::new(ROOT).join("scripts/r2-put.mjs"))
        .args(["--bucket", "site-media", "--remote", "--dry-run", "--from"])
        .arg(objects.path())
        .current_dir(project.path())
        .output()
        .expect("node runs");
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "site-media/_edgesite/r/b.bin",
            "site-media/_edgesite/r/c.bin"
        ]
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("2 of 3 objects put (dry run)"));
}

#[test]
fn a_deploy_without_the_r2_binding_is_refused_before_anything_is_uploaded() {
    // The upload command would leave a mark if it ran.
    let mark = tempfile::tempdir().unwrap();
    let marked = mark.path().join("uploaded");
    let output = Command::new(Path::new(ROOT).join("scripts/deploy.sh"))
        .args(["touch"])
        .arg(&marked)
        .env(
            "EDGESITE_CONFIG",
            Path::new(ROOT).join("tests/fixtures/stored.toml"),
        )
        .output()
        .expect("deploy.sh runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("edgesite-test") && stderr.contains("EDGESITE_R2"),
        "{stderr}"
    );
    assert!(!marked.exists(), "nothing was uploaded");
}

/// moto's S3 server on a free port, stopped on drop.
struct S3Server {
    child: Child,
    port: u16,
}

impl S3Server {
    fn start() -> S3Server {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("moto_server runs (make setup installs it)");
        let server = S3Server { child, port };
        let deadline = Instant::now() + Duration::from_secs(60);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "moto_server did not answer in 60 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }

    /// One request with Connection: close: the status line and fields, and the body.
    fn request(&self, method: &str, path: &str) -> (String, Vec<u8>) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8_lossy(&raw[..end]).to_string();
        (head, raw[end + 4..].to_vec())
    }
}

impl S3Server {
    /// Object `key` of bucket `site-media` read back through the S3 API, signed (moto, like R2,
    /// answers an unsigned read 403): its ETag and bytes.
    fn get(&self, key: &str) -> (String, Vec<u8>) {
        let out = tempfile::NamedTempFile::new().unwrap();
        let script = "import { AwsClient } from 'aws4fetch'; import { writeFileSync } from 'node:fs';
            const [url, out] = process.argv.slice(1);
            const s3 = new AwsClient({ accessKeyId: 'edgesite-test', secretAccessKey: 'edgesite-test', service: 's3', region: 'auto' });
            const r = await s3.fetch(url);
            if (!r.ok) throw new Error(`${r.status} ${await r.text()}`);
            writeFileSync(out, Buffer.from(await r.arrayBuffer()));
            console.log(r.headers.get('etag'));";
        let output = Command::new("node")
            .args(["--input-type=module", "-e", script])
            .arg(format!("http://127.0.0.1:{}/site-media/{key}", self.port))
            .arg(out.path())
            .current_dir(ROOT)
            .output()
            .expect("node runs");
        assert!(output.status.success(), "{output:?}");
        let etag = String::from_utf8(output.stdout).unwrap().trim().to_string();
        (etag, std::fs::read(out.path()).unwrap())
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// r2-put.mjs --remote with R2's S3 credentials, against `server`'s bucket `site-media`.
fn put_through_s3(server: &S3Server, from: &Path) -> std::process::Output {
    Command::new("node")
        .arg(Path::new(ROOT).join("scripts/r2-put.mjs"))
        .args([
            "--bucket",
            "site-media",
            "--remote",
            "--part-bytes",
            "5242880",
            "--from",
        ])
        .arg(from)
        .env("R2_ENDPOINT", format!("http://127.0.0.1:{}", server.port))
        .env("R2_ACCESS_KEY_ID", "edgesite-test")
        .env("R2_SECRET_ACCESS_KEY", "edgesite-test")
        .env_remove("CLOUDFLARE_ACCOUNT_ID")
        .current_dir(from)
        .output()
        .expect("node runs")
}

#[test]
fn with_s3_credentials_only_missing_objects_are_put_and_large_ones_go_up_in_parts() {
    let server = S3Server::start();
    let (created, _) = server.request("PUT", "/site-media");
    assert!(created.starts_with("HTTP/1.1 200"), "{created}");
    let objects = tempfile::tempdir().unwrap();
    let folder = objects.path().join("_edgesite/r");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("small.bin"), "small").unwrap();
    // 12 MiB of varied bytes: three parts of 5 MiB, the last shorter.
    let large: Vec<u8> = (0..12u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    std::fs::write(folder.join("large.bin"), &large).unwrap();

    let first = put_through_s3(&server, objects.path());
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{stderr}");
    assert!(
        stderr.contains("_edgesite/r/large.bin: 3 parts"),
        "{stderr}"
    );
    assert!(stderr.contains("2 of 2 objects put"), "{stderr}");
    // Each object holds its bytes; the large one's ETag is a multipart upload's (S3: the digest
    // of the parts' digests, then "-" and how many parts).
    let (etag, body) = server.get("_edgesite/r/large.bin");
    assert!(
        body == large,
        "the large object's bytes ({} bytes)",
        body.len()
    );
    assert!(etag.ends_with("-3\""), "{etag}");
    let (etag, body) = server.get("_edgesite/r/small.bin");
    assert_eq!(body, b"small");
    assert!(!etag.contains('-'), "{etag}");

    // Again: the bucket holds both (a HEAD each), so nothing is put.
    let again = put_through_s3(&server, objects.path());
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{stderr}");
    assert!(stderr.contains("0 of 2 objects put"), "{stderr}");
    // A key the bucket holds with another size than the file's is put again (as one whose
    // upload was cut short would be).
    std::fs::write(folder.join("small.bin"), "smaller").unwrap();
    let after = put_through_s3(&server, objects.path());
    let stderr = String::from_utf8_lossy(&after.stderr);
    assert!(stderr.contains("1 of 2 objects put"), "{stderr}");
    assert_eq!(server.get("_edgesite/r/small.bin").1, b"smaller");
}

#[test]
fn without_s3_credentials_a_file_over_300_mib_is_refused_before_anything_is_put() {
    let objects = tempfile::tempdir().unwrap();
    let folder = objects.path().join("_edgesite/r");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("a.bin"), "a").unwrap();
    // Sparse: its size is all the script reads before refusing.
    let film = std::fs::File::create(folder.join("film.bin")).unwrap();
    film.set_len(300 * 1024 * 1024 + 1).unwrap();
    let output = Command::new("node")
        .arg(Path::new(ROOT).join("scripts/r2-put.mjs"))
        .args(["--bucket", "site-media", "--remote", "--dry-run", "--from"])
        .arg(objects.path())
        .env_remove("R2_ACCESS_KEY_ID")
        .current_dir(objects.path())
        .output()
        .expect("node runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("_edgesite/r/film.bin (314572801 bytes)")
            && stderr.contains("R2_ACCESS_KEY_ID")
            && stderr.contains("Nothing was put"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty(), "no key listed");
}
