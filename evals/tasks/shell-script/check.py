import pathlib
import subprocess
import tempfile

with tempfile.TemporaryDirectory() as tmp:
    src = pathlib.Path(tmp, "src")
    src.mkdir()
    (src / "a.txt").write_text("a")
    dest = pathlib.Path(tmp, "out")
    run = subprocess.run(["sh", "scripts/backup.sh", str(src), str(dest)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert (dest / "backup.tar.gz").exists()
    assert "backup written" in run.stdout
    default = subprocess.run(["sh", "scripts/backup.sh", str(src)], capture_output=True, text=True)
    assert default.returncode == 0, default.stderr
    assert pathlib.Path("backups/backup.tar.gz").exists()
