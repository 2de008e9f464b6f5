;;; driver.el --- Batch Emacs driver for tests/editors/test_emacs.py  -*- lexical-binding: t; -*-

;; emacs --batch -l tests/editors/emacs/driver.el
;;
;; Reads its configuration (JSON) from $LLM_EDITS_EMACS_CONFIG: workspace, server_cmd, el_file,
;; out, responses.  Sets up eglot as docs/editors.md shows, loads editors/emacs/llm-edits.el,
;; runs its commands against the real language server, and writes what it observed as JSON to
;; `out'.  Any error is written as {"error": ...} and exits with status 1, so the test fails
;; instead of hanging (the test also runs Emacs under a timeout).

;;; Code:

(require 'package)
(package-initialize)  ; packages installed with package.el; Debian's elpa-eglot comes via site-start
(require 'cl-lib)
(require 'json)
(require 'eglot)
(require 'python)

(defvar driver-config (let ((json-array-type 'list))
                        (json-read-file (getenv "LLM_EDITS_EMACS_CONFIG"))))
(defvar driver-observed nil)

(defun driver-get (key &optional table)
  (alist-get key (or table driver-config)))

(defun driver-observe (key value)
  (push (cons key value) driver-observed))

(defun driver-text (buffer)
  (with-current-buffer buffer
    (buffer-substring-no-properties (point-min) (point-max))))

(defun driver-disk (path)
  (with-temp-buffer
    (insert-file-contents-literally path)
    (decode-coding-region (point-min) (point-max) 'utf-8)
    (buffer-string)))

(defun driver-statuses (result)
  (mapcar (lambda (block) (plist-get block :status)) (plist-get result :blocks)))

(defun driver-response (text)
  "A fresh, unmanaged buffer holding TEXT (the pasted LLM response)."
  (let ((buffer (get-buffer-create "*response*")))
    (with-current-buffer buffer
      (erase-buffer)
      (insert text))
    buffer))

(defun driver-last-message ()
  "The last line of *Messages* (batch Emacs logs `message' there as well)."
  (with-current-buffer "*Messages*"
    (car (last (split-string (buffer-string) "\n" t)))))

(defun driver-wait-until (what predicate)
  "Poll PREDICATE (processing process output meanwhile) until it holds; fail after 120 s (a generous deadline for a loaded machine, not a speed assumption)."
  (let ((deadline (+ (float-time) 120)))
    (while (not (funcall predicate))
      (when (> (float-time) deadline)
        (error "Timed out waiting for %s" what))
      (accept-process-output nil 0.05))))

(defun driver-main ()
  (let* ((ws (file-name-as-directory (driver-get 'workspace)))
         (responses (driver-get 'responses))
         (default-directory ws))
    ;; As docs/editors.md shows (plus: apply without asking, this is a test).
    (add-to-list 'eglot-server-programs
                 `((python-mode) . ,(driver-get 'server_cmd)))
    (load (driver-get 'el_file) nil t)
    (setq eglot-confirm-server-initiated-edits nil
          ;; Wait for the server to start (importing lsprotocol takes seconds on a busy machine)
          ;; instead of connecting in the background after 3 s.
          eglot-sync-connect t
          eglot-connect-timeout 60)
    (let ((a (find-file-noselect (concat ws "a.py")))
          (b (find-file-noselect (concat ws "b.py")))
          (d (find-file-noselect (concat ws "d.py")))
          (s (find-file-noselect (concat ws "s.py")))
          (r (find-file-noselect (concat ws "r.py")))
          (amb (find-file-noselect (concat ws "amb.py"))))
      ;; The server setting mcp on, as docs/agents.md shows (sent on connect).
      (setq-default eglot-workspace-configuration '(:llmEdits (:mcp (:enabled t))))
      (with-current-buffer a
        (apply #'eglot (eglot--guess-contact)))
      (dolist (buffer (list a b d s r amb))
        (with-current-buffer buffer
          (unless (eglot-current-server)
            (error "%s is not managed by eglot" buffer))))

      ;; Unsaved changes: a line above everything, and text to the right of an emoji.
      (with-current-buffer a
        (goto-char (point-min))
        (insert "# unsaved line\n")
        (search-forward "one")
        (insert " (unsaved)"))

      (with-current-buffer (driver-response (driver-get 'main responses))
        (let ((result (llm-edits-apply nil nil)))
          (driver-observe 'main_statuses (driver-statuses result))
          (driver-observe 'main_applied (plist-get result :applied))
          (driver-observe 'main_failed_line (plist-get (aref (plist-get result :blocks) 2) :line))))
      (driver-observe 'a_text (driver-text a))
      (driver-observe 'b_text (driver-text b))
      (driver-observe 'a_modified (buffer-modified-p a))
      (driver-observe 'a_disk (driver-disk (concat ws "a.py")))

      ;; The same response again: the two applied blocks are already in place.
      (with-current-buffer (driver-response (driver-get 'main responses))
        (let ((result (llm-edits-apply nil nil)))
          (driver-observe 'again_statuses (driver-statuses result))
          (driver-observe 'again_edit (plist-get result :edit))
          (driver-observe 'again_message (driver-last-message))))
      (driver-observe 'a_text_again (driver-text a))
      (driver-observe 'b_text_again (driver-text b))

      ;; Preview: a diff-mode buffer; d.py untouched.
      (with-current-buffer (driver-response (driver-get 'preview responses))
        (let ((result (llm-edits-preview nil nil)))
          (driver-observe 'preview_statuses (driver-statuses result))))
      (driver-observe 'preview_text (driver-text "*llm-edits preview*"))
      (driver-observe 'preview_mode
                      (symbol-name (buffer-local-value 'major-mode
                                                       (get-buffer "*llm-edits preview*"))))
      (driver-observe 'd_after_preview (driver-text d))

      ;; Stale: the user types in s.py after the server computed the edit, before eglot applies
      ;; it; the TextDocumentEdit's version no longer matches and eglot refuses it.
      (let ((typing (lambda (&rest _)
                      (with-current-buffer s
                        (goto-char (point-min))
                        (insert "# typed while the edit was in flight\n")))))
        (advice-add 'eglot--apply-workspace-edit :before typing)
        (unwind-protect
            (with-current-buffer (driver-response (driver-get 'stale responses))
              (let ((result (llm-edits-apply nil nil)))
                (driver-observe 'stale_statuses (driver-statuses result))
                (driver-observe 'stale_applied (plist-get result :applied))))
          (advice-remove 'eglot--apply-workspace-edit typing)))
      (driver-observe 's_text (driver-text s))

      ;; Feedback on the kill ring.
      (with-current-buffer (driver-response (driver-get 'failing responses))
        (llm-edits-feedback nil nil))
      (driver-observe 'feedback (current-kill 0))

      ;; Choosing blocks: C-u M-x llm-edits-apply, "1,3" typed at the prompt (stdin).
      (with-current-buffer (driver-response (driver-get 'review responses))
        (let* ((current-prefix-arg '(4))
               (result (call-interactively #'llm-edits-apply)))
          (driver-observe 'chosen_statuses (driver-statuses result))
          (driver-observe 'chosen_message (driver-last-message))))
      (driver-observe 'r_text (driver-text r))
      ;; Bad lists: a user-error each, nothing applied.
      (driver-observe 'bad_lists
                      (vconcat
                       (mapcar (lambda (list)
                                 (with-current-buffer (driver-response (driver-get 'review responses))
                                   (condition-case err
                                       (progn (llm-edits-apply nil nil list) "no error")
                                     (user-error (error-message-string err)))))
                               (driver-get 'bad_lists))))
      (driver-observe 'r_text_after_bad (driver-text r))
      ;; C-u M-x llm-edits-preview, "2" typed at the prompt.
      (with-current-buffer (driver-response (driver-get 'review responses))
        (let* ((current-prefix-arg '(4))
               (result (call-interactively #'llm-edits-preview)))
          (driver-observe 'chosen_preview_statuses (driver-statuses result))
          (driver-observe 'chosen_preview_message (driver-last-message))))
      (driver-observe 'chosen_preview_text (driver-text "*llm-edits preview*"))

      ;; An ambiguous block fails; eglot's code actions on its line offer one quick fix per
      ;; place, and the one typed at eglot's prompt (stdin) applies the block there.
      (with-current-buffer (driver-response (driver-get 'ambiguous responses))
        (let* ((result (llm-edits-apply nil nil))
               (block (aref (plist-get result :blocks) 0)))
          (driver-observe 'amb_statuses (driver-statuses result))
          (driver-observe 'amb_candidates (plist-get (plist-get block :fixes) :candidateLines))
          (with-current-buffer amb
            (goto-char (point-min))
            (forward-line (plist-get block :line)))))
      (let ((offered nil))
        (let ((record (lambda (actions &rest _)
                        (setq offered (mapcar (lambda (a) (plist-get a :title)) actions)))))
          (advice-add 'eglot--read-execute-code-action :before record)
          (unwind-protect
              (with-current-buffer amb
                ;; As when run from the keyboard: eglot asks in the minibuffer, not a menu.
                (let ((last-nonmenu-event ?\r))
                  (eglot-code-actions (line-beginning-position) (line-end-position) nil t)))
            (advice-remove 'eglot--read-execute-code-action record)))
        (driver-observe 'amb_offered (vconcat offered)))
      (driver-observe 'amb_text (driver-text amb))

      ;; Shell suggestions: listed in a buffer, none run; RET runs the one at point only after
      ;; y-or-n-p says yes (batch Emacs reads the answers from stdin: y, then n).
      (with-current-buffer (driver-response (driver-get 'shell responses))
        (let ((result (llm-edits-apply nil nil)))
          (driver-observe 'shell_statuses (driver-statuses result))
          (driver-observe 'shell_message (driver-last-message))))
      (driver-observe 'shell_dirs_before_asking
                      (vconcat (seq-filter (lambda (name) (file-exists-p (concat ws name)))
                                           '("made_by_yes" "declined"))))
      (with-current-buffer llm-edits-shell-buffer
        (driver-observe 'shell_buffer (driver-text (current-buffer)))
        (driver-observe 'shell_mode (symbol-name major-mode))
        (goto-char (point-min))
        (search-forward "mkdir -p made_by_yes")
        (let ((process (call-interactively #'llm-edits-shell-run)))
          (driver-observe 'shell_started (processp process))
          (driver-wait-until "the command's exit status"
                             (lambda ()
                               (with-current-buffer llm-edits-shell-output-buffer
                                 (string-match-p "\\[exit " (buffer-string))))))
        (forward-line 1)
        (driver-observe 'shell_declined (call-interactively #'llm-edits-shell-run)))
      (driver-observe 'shell_output (driver-text llm-edits-shell-output-buffer))
      (driver-observe 'shell_dirs
                      (vconcat (seq-filter (lambda (name) (file-exists-p (concat ws name)))
                                           '("made_by_yes" "declined"))))
      ;; A compound suggestion hiding a bidi override: each command a shell would run on a line
      ;; of its own, by its display text, and the question shows that text (answered no here).
      (with-current-buffer (driver-response (driver-get 'compound_shell responses))
        (llm-edits-apply nil nil))
      (with-current-buffer llm-edits-shell-buffer
        (driver-observe 'compound_buffer (driver-text (current-buffer)))
        (goto-char (point-min))
        (search-forward "2. ")
        (let ((asked nil))
          (cl-letf (((symbol-function 'y-or-n-p) (lambda (prompt) (setq asked prompt) nil)))
            (driver-observe 'compound_declined (call-interactively #'llm-edits-shell-run)))
          (driver-observe 'compound_prompt asked)))

      ;; Staging: the apply's file is saved (its earlier unsaved change too) and staged;
      ;; a.py, modified but not part of this apply, stays unsaved and unstaged.
      (setq llm-edits-stage-in-git t)
      (with-current-buffer (driver-response (driver-get 'stage responses))
        (let ((result (llm-edits-apply nil nil)))
          (driver-observe 'stage_statuses (driver-statuses result))
          (driver-observe 'stage_message (driver-last-message))))
      (driver-observe 'd_modified_after_stage (buffer-modified-p d))
      (driver-observe 'a_modified_after_stage (buffer-modified-p a))
      (setq llm-edits-stage-in-git nil)

      ;; A chat answer (a code fence naming no file): C-u M-x llm-edits-apply, no blocks
      ;; (empty) and a.py typed as the target; merged into a.py's unsaved buffer.
      (with-current-buffer (driver-response (driver-get 'target responses))
        (let* ((current-prefix-arg '(4))
               (result (call-interactively #'llm-edits-apply)))
          (driver-observe 'target_statuses (driver-statuses result))
          (driver-observe 'target_files (mapcar (lambda (block) (plist-get block :file))
                                                (plist-get result :blocks)))))
      (driver-observe 'a_text_after_target (driver-text a))

      ;; M-x llm-edits-mcp-config: the agents' MCP endpoint and each agent's configuration.
      (with-current-buffer a
        (let ((result (llm-edits-mcp-config)))
          (driver-observe 'mcp_url (plist-get result :url))
          (driver-observe 'mcp_token (plist-get result :token))))
      (driver-observe 'mcp_buffer (driver-text "*llm-edits mcp*"))
      (with-current-buffer a
        (eglot-shutdown (eglot-current-server))))))

(defun driver-write (payload)
  (let ((coding-system-for-write 'utf-8))
    (with-temp-file (driver-get 'out)
      (insert (json-encode payload)))))

(condition-case err
    (progn
      (driver-main)
      (driver-write driver-observed)
      (kill-emacs 0))
  (t
   (driver-write `((error . ,(format "%S" err)) (observed . ,driver-observed)))
   (kill-emacs 1)))

;;; driver.el ends here
